import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

# The NLP series' "Deep Learning with PyTorch" page, as our own program: an affine map, non-linearities,
# softmax, and a bag-of-words classifier trained with NLLLoss.
torch.manual_seed(1)
affine = nn.Linear(4, 2)
batch = torch.randn(3, 4)
print(affine(batch))
print(affine)
print(F.relu(batch))
logits = torch.randn(5)
print(logits)
print(F.softmax(logits, dim=0))
print(F.softmax(logits, dim=0).sum())
print(F.log_softmax(logits, dim=0))

train = [("el gato come pescado".split(), "SPANISH"),
         ("the dog eats meat".split(), "ENGLISH"),
         ("no quiero ir a casa".split(), "SPANISH"),
         ("I want to go home now".split(), "ENGLISH")]
test = [("el perro come".split(), "SPANISH"),
        ("the cat wants fish".split(), "ENGLISH")]
word_to_ix = {}
for sent, _ in train + test:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
print(word_to_ix)
VOCAB_SIZE = len(word_to_ix)
NUM_LABELS = 2
label_to_ix = {"SPANISH": 0, "ENGLISH": 1}


class BoWClassifier(nn.Module):
    def __init__(self, num_labels, vocab_size):
        super().__init__()
        self.linear = nn.Linear(vocab_size, num_labels)

    def forward(self, bow_vec):
        return F.log_softmax(self.linear(bow_vec), dim=1)


def make_bow_vector(sentence, word_to_ix):
    vec = torch.zeros(len(word_to_ix))
    for word in sentence:
        vec[word_to_ix[word]] += 1
    return vec.view(1, -1)


def make_target(label, label_to_ix):
    return torch.LongTensor([label_to_ix[label]])


model = BoWClassifier(NUM_LABELS, VOCAB_SIZE)
print(model)
for param in model.parameters():
    print(param)
with torch.no_grad():
    sample = train[0]
    print(model(make_bow_vector(sample[0], word_to_ix)))
    for instance, label in test:
        print(model(make_bow_vector(instance, word_to_ix)))
print(next(model.parameters())[:, word_to_ix["come"]])

loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    for instance, label in train:
        model.zero_grad()
        bow_vec = make_bow_vector(instance, word_to_ix)
        target = make_target(label, label_to_ix)
        log_probs = model(bow_vec)
        loss = loss_function(log_probs, target)
        loss.backward()
        optimizer.step()
    if epoch % 25 == 0:
        print(epoch, round(loss.item(), 4))
with torch.no_grad():
    for instance, label in test:
        log_probs = model(make_bow_vector(instance, word_to_ix))
        print([f"{v:.4f}" for v in log_probs[0].tolist()], label)
print(torch.round(next(model.parameters())[:, word_to_ix["come"]], decimals=3))
