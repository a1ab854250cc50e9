import torch
import torch.nn as nn
import torch.nn.functional as F

# Adversarial examples with the fast gradient sign method, in the order of PyTorch's FGSM tutorial (our own
# program, on 12x12 images made in the program instead of MNIST): a small CNN trained first, then for each
# epsilon the test loop - data.requires_grad, the loss's gradient with respect to the input, the attack
# image x + eps * sign(grad) clamped to [0, 1], the final prediction - and the accuracy per epsilon.

torch.manual_seed(42)
epsilons = [0, .05, .1, .2, .3]


def make_images(n, g):
    labels = torch.randint(0, 3, (n,), generator=g)
    images = torch.rand(n, 1, 12, 12, generator=g) * 0.3
    for i, y in enumerate(labels.tolist()):
        if y == 0:
            images[i, 0, 2:10, 5:7] += 0.7   # a vertical bar
        elif y == 1:
            images[i, 0, 5:7, 2:10] += 0.7   # a horizontal bar
        else:
            images[i, 0, 3:9, 3:9] += 0.5    # a square
    return images.clamp(0, 1), labels


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


g = torch.Generator().manual_seed(0)
train_x, train_y = make_images(240, g)
test_x, test_y = make_images(60, g)
device = torch.device("cpu")
model = Net().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(3):
    model.train()
    for i in range(0, 240, 24):
        data, target = train_x[i:i + 24], train_y[i:i + 24]
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
model.eval()


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


def test(model, device, epsilon):
    correct = 0
    adv_examples = []
    for data, target in zip(test_x.split(1), test_y.split(1)):
        data, target = data.to(device), target.to(device)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        perturbed_data = fgsm_attack(data, epsilon, data_grad)
        output = model(perturbed_data)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
            if epsilon == 0 and len(adv_examples) < 3:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
        else:
            if len(adv_examples) < 3:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
    final_acc = correct / float(len(test_x))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(test_x)} = {final_acc}")
    return final_acc, adv_examples


accuracies = []
examples = []
for eps in epsilons:
    acc, ex = test(model, device, eps)
    accuracies.append(acc)
    examples.append(ex)
print([round(a, 4) for a in accuracies])
# (the predictions before and after each attack, and the images' shapes; not their pixels: a pixel whose
# gradient is a float32 rounding residue, 1e-9 where others are 1e-4, takes either sign in either library)
print([[(i, f, e.shape) for i, f, e in ex] for ex in examples])
