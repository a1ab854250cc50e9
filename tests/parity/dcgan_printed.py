import random
import torch
import torch.nn as nn
import torch.optim as optim

# A DCGAN in the order of PyTorch's DCGAN tutorial (our own program, small, on 16x16 images made in the
# program instead of a download): seeds and torch.use_deterministic_algorithms, weights_init applied with
# Module.apply, a generator of ConvTranspose2d/BatchNorm2d/ReLU/Tanh, a discriminator of
# Conv2d/LeakyReLU/BatchNorm2d/Sigmoid, BCELoss, Adam with the tutorial's betas, and its training loop:
# the real batch, fake.detach() for the discriminator, label.fill_, the generator's step, the losses and
# D(x), D(G(z)) printed as the tutorial prints them. tests/test_parity_printed.py runs it whole under
# PyTorch and under minigrad (only the import lines changed) and compares the printed lines.

manualSeed = 999
random.seed(manualSeed)
torch.manual_seed(manualSeed)
torch.use_deterministic_algorithms(True)

nc, nz, ngf, ndf = 1, 8, 8, 8
batch_size, image_size, num_epochs, lr, beta1 = 16, 16, 2, 0.0002, 0.5

# made data: bright squares on a dark field, scaled to [-1, 1] as the tutorial's Normalize does
g = torch.Generator().manual_seed(0)
data = -torch.ones(64, nc, image_size, image_size)
for i in range(64):
    r, c = torch.randint(0, 10, (2,), generator=g).tolist()
    data[i, :, r:r + 6, c:c + 6] = 1.0
dataset = torch.utils.data.TensorDataset(data)
dataloader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
device = torch.device("cpu")


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh()
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        return self.main(input)


netG = Generator().to(device)
netG.apply(weights_init)
print(netG)
netD = Discriminator().to(device)
netD.apply(weights_init)
print(netD)

criterion = nn.BCELoss()
fixed_noise = torch.randn(8, nz, 1, 1, device=device)
real_label, fake_label = 1., 0.
optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

img_list, G_losses, D_losses = [], [], []
iters = 0
print("Starting Training Loop...")
for epoch in range(num_epochs):
    for i, data in enumerate(dataloader, 0):
        netD.zero_grad()
        real_cpu = data[0].to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(b_size, nz, 1, 1, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()

        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()

        print('[%d/%d][%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f / %.4f'
              % (epoch, num_epochs, i, len(dataloader), errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
        G_losses.append(errG.item())
        D_losses.append(errD.item())
        if (iters % 4 == 0) or ((epoch == num_epochs - 1) and (i == len(dataloader) - 1)):
            with torch.no_grad():
                fake = netG(fixed_noise).detach().cpu()
            img_list.append(fake)
        iters += 1

print(len(img_list), img_list[-1].shape, round(img_list[-1].mean().item(), 4))
print(errG.grad_fn, errD.grad_fn, fake.requires_grad)
print(sum(p.numel() for p in netG.parameters()), sum(p.numel() for p in netD.parameters()))
print(netD.main[3].running_mean.shape, netG.main[1].num_batches_tracked)
