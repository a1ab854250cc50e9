import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

# The NLP series' word-embeddings page, as our own program: nn.Embedding lookups, an n-gram language
# model trained a few epochs, and a CBOW context vector.
torch.manual_seed(1)
word_to_ix = {"good": 0, "day": 1}
embeds = nn.Embedding(2, 5)
print(embeds)
lookup = torch.tensor([word_to_ix["day"]], dtype=torch.long)
print(embeds(lookup))
print(embeds(torch.tensor([[0, 1], [1, 1]])))

CONTEXT_SIZE = 2
EMBEDDING_DIM = 10
text = """The quiet river runs beneath the old stone bridge and carries
leaves and light toward the sea while the town above it sleeps and the
river keeps its own slow count of the hours""".split()
ngrams = [([text[i - j - 1] for j in range(CONTEXT_SIZE)], text[i]) for i in range(CONTEXT_SIZE, len(text))]
print(ngrams[:3])
vocab = sorted(set(text))
word_to_ix = {word: i for i, word in enumerate(vocab)}


class NGramLanguageModeler(nn.Module):
    def __init__(self, vocab_size, embedding_dim, context_size):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear1 = nn.Linear(context_size * embedding_dim, 32)
        self.linear2 = nn.Linear(32, vocab_size)

    def forward(self, inputs):
        embeds = self.embeddings(inputs).view((1, -1))
        out = F.relu(self.linear1(embeds))
        out = self.linear2(out)
        return F.log_softmax(out, dim=1)


losses = []
loss_function = nn.NLLLoss()
model = NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE)
print(model)
optimizer = optim.SGD(model.parameters(), lr=0.001)
for epoch in range(5):
    total_loss = 0
    for context, target in ngrams:
        context_idxs = torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)
        model.zero_grad()
        log_probs = model(context_idxs)
        loss = loss_function(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long))
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    losses.append(round(total_loss, 3))
print(losses)
print(model.embeddings.weight[word_to_ix["river"]].detach().round(decimals=3))

raw_text = "we are about to study the idea of a computational process".split()
vocab = set(raw_text)
word_to_ix = {word: i for i, word in enumerate(sorted(vocab))}
data = []
for i in range(2, len(raw_text) - 2):
    context = [raw_text[i - 2], raw_text[i - 1], raw_text[i + 1], raw_text[i + 2]]
    data.append((context, raw_text[i]))
print(data[:2])


class CBOW(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim)
        self.out = nn.Linear(dim, vocab_size)

    def forward(self, idxs):
        return F.log_softmax(self.out(self.emb(idxs).sum(dim=0, keepdim=True)), dim=-1)


def make_context_vector(context, word_to_ix):
    idxs = [word_to_ix[w] for w in context]
    return torch.tensor(idxs, dtype=torch.long)


ctx = make_context_vector(data[0][0], word_to_ix)
print(ctx)
cbow = CBOW(len(vocab), 8)
print(cbow(ctx).shape, cbow(ctx).argmax(dim=1))
print(cbow(ctx).exp().sum().round(decimals=3))  # (the log-probs come from a float32 matmul: the last bit is the BLAS library's)
