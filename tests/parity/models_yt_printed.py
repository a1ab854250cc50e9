import torch
import torch.nn as nn
import torch.nn.functional as F

# Building models as the "Introduction to PyTorch" video series does (our own program): a tiny model and a
# LeNet printed with their parameters and children, Linear and Conv2d layers, an LSTM tagger, a Transformer's
# repr, and the layers between (pooling, normalization, dropout), activation and loss modules.
# tests/test_parity_printed.py runs it under both frameworks and compares every printed line.


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(100, 200)
        self.activation = nn.ReLU()
        self.linear2 = nn.Linear(200, 10)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        return self.softmax(x)


torch.manual_seed(0)
tinymodel = TinyModel()
print("The model:")
print(tinymodel)
print("\n\nJust one layer:")
print(tinymodel.linear2)
print("\n\nModel params:")
for param in tinymodel.parameters():
    print(param.shape, param.dtype, param.requires_grad)
print("\n\nLayer params:")
for param in tinymodel.linear2.parameters():
    print(param[:2, :3] if param.ndim == 2 else param[:4])
for name, param in tinymodel.named_parameters():
    print(name, tuple(param.shape))
for name, child in tinymodel.named_children():
    print(name, "->", child)
print(sum(p.numel() for p in tinymodel.parameters()), len(list(tinymodel.modules())), len(tinymodel.state_dict()))
print(list(tinymodel.state_dict().keys()))
out = tinymodel(torch.rand(2, 100))
print(out.shape, out.sum(dim=1), out.grad_fn)

lin = nn.Linear(3, 2)
x = torch.rand(1, 3)
print("Input:")
print(x)
print("\n\nWeight and Bias parameters:")
for param in lin.parameters():
    print(param)
y = lin(x)
print("\n\nOutput:")
print(y)
print(lin.weight.shape, lin.bias.shape, lin.in_features, lin.out_features, repr(lin))
print(nn.Linear(4, 5, bias=False), nn.Linear(4, 5, bias=False).bias)
print(nn.Bilinear(2, 3, 4), nn.Identity(), nn.Flatten(), nn.Unflatten(1, (2, 2)))


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 6 * 6, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


torch.manual_seed(1)
net = LeNet()
print(net)
params = list(net.parameters())
print(len(params), params[0].size(), [tuple(p.shape) for p in params])
inp = torch.randn(1, 1, 32, 32)
out = net(inp)
print(out.shape, out.grad_fn)
print(torch.round(out * 1e4) / 1e4)
print(net.conv1.weight[0, 0, 0], net.conv1.bias[:3])
print(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.Conv2d(3, 8, (3, 5), bias=False, dilation=2, groups=1))
print(nn.Conv1d(4, 4, 3, groups=2, padding="same"), nn.ConvTranspose2d(8, 3, 2, stride=2), nn.Conv2d(2, 2, 1, padding_mode="reflect"))
conv = nn.Conv2d(1, 2, 3, padding=1)
print(conv.weight.shape, conv.bias.shape, conv(torch.ones(1, 1, 4, 4)).shape)
print(conv.kernel_size, conv.stride, conv.padding, conv.dilation, conv.groups, conv.padding_mode)


class LSTMTagger(torch.nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super(LSTMTagger, self).__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = torch.nn.Embedding(vocab_size, embedding_dim)
        self.lstm = torch.nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = torch.nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores


torch.manual_seed(2)
word_to_ix = {"the": 0, "dog": 1, "ate": 2, "apple": 3, "everybody": 4, "read": 5, "that": 6, "book": 7}
tagger = LSTMTagger(6, 6, len(word_to_ix), 3)
print(tagger)
sentence = torch.tensor([word_to_ix[w] for w in "the dog ate the apple".split()], dtype=torch.long)
with torch.no_grad():
    scores = tagger(sentence)
print(scores.shape, scores.argmax(dim=1))
print(torch.round(scores * 1e4) / 1e4)
for name, param in tagger.lstm.named_parameters():
    print(name, tuple(param.shape))
print(nn.LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.1), nn.GRU(3, 4, bidirectional=True), nn.RNN(3, 4))
print(nn.Embedding(10, 3, padding_idx=0), nn.Embedding(5, 2, max_norm=1.0), nn.LSTMCell(3, 4), nn.GRUCell(2, 2))
lstm = nn.LSTM(3, 4)
o, (h, c) = lstm(torch.randn(5, 2, 3))
print(o.shape, h.shape, c.shape, o.grad_fn is not None)

transformer_model = torch.nn.Transformer(nhead=2, num_encoder_layers=1, num_decoder_layers=1, d_model=8, dim_feedforward=16)
print(transformer_model)
print(sum(p.numel() for p in transformer_model.parameters()))
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=32, batch_first=True)
print(layer)
print(nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False))
print(nn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 2).in_proj_weight.shape)

torch.manual_seed(3)
my_tensor = torch.rand(1, 6, 6)
print(my_tensor)
maxpool_layer = torch.nn.MaxPool2d(3)
print(maxpool_layer)
print(maxpool_layer(my_tensor))
print(nn.MaxPool2d(2, stride=1, padding=1), nn.AvgPool2d(2), nn.AdaptiveAvgPool2d((1, 1)), nn.MaxPool1d(2))
print(nn.AvgPool2d(2)(my_tensor), nn.AdaptiveAvgPool2d(1)(my_tensor), nn.MaxPool2d(2, return_indices=True)(my_tensor)[1], sep="\n")

my_tensor = torch.rand(1, 4, 4) * 20 + 5
print(my_tensor)
print(my_tensor.mean())
norm_layer = torch.nn.BatchNorm1d(4)
print(norm_layer)
normed_tensor = norm_layer(my_tensor)
print(normed_tensor)
print(normed_tensor.mean().abs() < 1e-6)  # about 0; its last bits are the normalisation's float32 rounding
print(norm_layer.running_mean, norm_layer.running_var, norm_layer.num_batches_tracked)
norm_layer.eval()
print(norm_layer(my_tensor))
print(norm_layer.training, norm_layer.train().training)
print(nn.BatchNorm2d(3), nn.BatchNorm1d(5, affine=False, momentum=None), nn.LayerNorm(4), nn.GroupNorm(2, 4))
print(nn.LayerNorm(4)(my_tensor)[0, 0], nn.InstanceNorm1d(4), nn.LayerNorm((4, 4), elementwise_affine=False))

my_tensor = torch.rand(1, 4, 4)
dropout = torch.nn.Dropout(p=0.4)
print(dropout)
print(dropout(my_tensor))
print(dropout(my_tensor))
dropout.eval()
print(dropout(my_tensor))
print(nn.Dropout(), nn.Dropout2d(0.2), nn.AlphaDropout(0.1), nn.Dropout(0.5, inplace=True))

x = torch.linspace(-3, 3, 7)
for act in [nn.ReLU(), nn.LeakyReLU(0.1), nn.Sigmoid(), nn.Tanh(), nn.GELU(), nn.GELU(approximate="tanh"), nn.SiLU(),
            nn.ELU(), nn.Softplus(), nn.Hardtanh(), nn.ReLU6(), nn.Softmax(dim=0), nn.LogSoftmax(dim=0), nn.Mish(),
            nn.PReLU(), nn.Hardswish(), nn.Hardsigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Threshold(0.5, 0.0),
            nn.CELU(), nn.SELU(), nn.Softmin(dim=0), nn.LogSigmoid(), nn.ReLU(inplace=True)]:
    print(act, act(x.clone()))
pred = torch.tensor([[0.2, 0.8], [0.9, 0.1], [0.4, 0.6]])
target = torch.tensor([1, 0, 0])
for loss_fn in [nn.CrossEntropyLoss(), nn.NLLLoss(), nn.CrossEntropyLoss(label_smoothing=0.1), nn.CrossEntropyLoss(reduction="sum")]:
    print(loss_fn, loss_fn(pred, target))
y = torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
for loss_fn in [nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.HuberLoss(delta=0.5), nn.BCELoss(), nn.BCEWithLogitsLoss(),
                nn.KLDivLoss(reduction="batchmean"), nn.MSELoss(reduction="none"), nn.SoftMarginLoss()]:
    print(loss_fn, loss_fn(pred, y))
print(nn.CosineEmbeddingLoss(), nn.MarginRankingLoss(margin=0.5), nn.TripletMarginLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss())
print(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)))
print(nn.ModuleList([nn.Linear(1, 1), nn.Tanh()]), nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 2)}))
seq = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(2, 3))
print(seq[0], seq[-1], len(seq), seq[1:3])
print(nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(1, 3))]))
print(nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2), requires_grad=False))
