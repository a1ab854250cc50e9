import torch
import torch.nn as nn

# print(net) for a network holding one of every layer type, written the way PyTorch's "Neural Networks"
# tutorial prints its LeNet (our own code). tests/test_parity_printed.py runs it whole under PyTorch and
# under minigrad (only the import lines changed) and compares the printed lines.


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, (3, 3), stride=2, padding=1, bias=False)
        self.conv1d = nn.Conv1d(4, 8, 3, padding="same", padding_mode="reflect")
        self.deconv = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1)
        self.adapt = nn.AdaptiveAvgPool2d((1, 1))
        self.bn = nn.BatchNorm2d(16)
        self.bn1 = nn.BatchNorm1d(32, momentum=None, affine=False)
        self.ln = nn.LayerNorm(120, eps=1e-6)
        self.gn = nn.GroupNorm(4, 16)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84, bias=False)
        self.emb = nn.Embedding(100, 16, padding_idx=0)
        self.rnn = nn.RNN(16, 32, num_layers=2, batch_first=True)
        self.lstm = nn.LSTM(16, 32, bidirectional=True, dropout=0.1, num_layers=2)
        self.gru = nn.GRU(16, 32)
        self.cell = nn.LSTMCell(16, 32)
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True), num_layers=2,
            enable_nested_tensor=False)
        self.drop = nn.Dropout(0.25)
        self.drop2d = nn.Dropout2d(0.1)
        self.flatten = nn.Flatten()
        self.unflatten = nn.Unflatten(1, (4, 4))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.pad = nn.ZeroPad2d((1, 1, 2, 0))
        self.shuffle = nn.PixelShuffle(2)
        self.head = nn.Sequential(
            nn.Linear(84, 42), nn.ReLU(), nn.LeakyReLU(0.2), nn.ELU(alpha=0.5), nn.GELU(approximate="tanh"),
            nn.SiLU(), nn.Tanh(), nn.Sigmoid(), nn.Hardtanh(-2.0, 2.0), nn.ReLU6(), nn.Softplus(beta=2.0),
            nn.PReLU(), nn.Identity(), nn.Linear(42, 10), nn.LogSoftmax(dim=1))
        self.blocks = nn.ModuleList([nn.Linear(10, 10) for _ in range(3)] + [nn.Softmax(dim=-1)])
        self.heads = nn.ModuleDict({"cls": nn.Linear(10, 2), "reg": nn.Linear(10, 1)})
        self.params = nn.ParameterList([nn.Parameter(torch.zeros(3)), nn.Parameter(torch.ones(2, 2))])
        self.loss = nn.CrossEntropyLoss(label_smoothing=0.1)
        self.mse = nn.MSELoss(reduction="sum")
        self.nll = nn.NLLLoss()
        self.bce = nn.BCEWithLogitsLoss()
        self.huber = nn.HuberLoss(delta=0.5)


net = Net()
print(net)
print(nn.Dropout(p=0.1))
print(nn.LayerNorm((4,)))
print(nn.Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1)))
print(net.conv1)
print(net.head[4])
print(len(list(net.parameters())))
params = list(net.parameters())
print(params[0].size())
