import math
import random
import string

import torch
import torch.nn as nn
from torch.autograd import Variable

# "Classifying names with a character-level RNN", in the classic style (our own program): names as one-hot
# letter tensors, an RNN made of two linear layers over torch.cat of the input and the hidden state, a
# LogSoftmax and NLLLoss, plain SGD on p.data, topk to read a guess, a confusion matrix and predictions.
# The names are made here (each language's syllables joined at random) in place of the data download.
# tests/test_parity_printed.py runs it whole under PyTorch and under minigrad (only the import lines
# changed) and compares the printed lines.

random.seed(0)
torch.manual_seed(0)
all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
syllables = {
    "Italian": ["ro", "ssi", "bi", "an", "chi", "lo", "ne", "tti"],
    "Japanese": ["ka", "to", "shi", "mu", "ra", "ta", "na", "ki"],
    "Polish": ["ko", "wal", "ski", "czy", "now", "ak", "wicz", "ew"],
    "Scottish": ["mac", "don", "ald", "camp", "bell", "ross", "gor", "die"],
}
all_categories = list(syllables)
n_categories = len(all_categories)
category_lines = {
    c: ["".join(random.choice(s) for _ in range(random.randint(2, 3))).capitalize() for _ in range(40)]
    for c, s in syllables.items()
}
print(category_lines["Italian"][:5])


def letterToIndex(letter):
    return all_letters.find(letter)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(letterToTensor("J"))
print(lineToTensor("Jones").size())


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.i2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return Variable(torch.zeros(1, self.hidden_size))


n_hidden = 32
rnn = RNN(n_letters, n_hidden, n_categories)

input = Variable(lineToTensor("Albert"))
hidden = Variable(torch.zeros(1, n_hidden))
output, next_hidden = rnn(input[0], hidden)
print(output)


def categoryFromOutput(output):
    top_n, top_i = output.data.topk(1)
    category_i = top_i[0][0]
    return all_categories[category_i], category_i


print(categoryFromOutput(output))


def randomChoice(items):
    return items[random.randint(0, len(items) - 1)]


def randomTrainingExample():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    category_tensor = Variable(torch.LongTensor([all_categories.index(category)]))
    line_tensor = Variable(lineToTensor(line))
    return category, line, category_tensor, line_tensor


for i in range(5):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    print("category =", category, "/ line =", line)

criterion = nn.NLLLoss()
learning_rate = 0.01


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


n_iters = 1500
print_every = 300
current_loss = 0
all_losses = []
for iter in range(1, n_iters + 1):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    if iter % print_every == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = "✓" if guess == category else "✗ (%s)" % category
        print("%d %d%% %.3f %s / %s %s" % (iter, iter / n_iters * 100, loss, line, guess, correct))
        all_losses.append(current_loss / print_every)
        current_loss = 0
print(["%.3f" % v for v in all_losses])

confusion = torch.zeros(n_categories, n_categories)


def evaluate(line_tensor):
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


for i in range(200):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output = evaluate(line_tensor)
    guess, guess_i = categoryFromOutput(output)
    category_i = all_categories.index(category)
    confusion[category_i][guess_i] += 1
for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()
print(confusion)
print("accuracy %.3f" % (confusion.diag().sum().item() / n_categories))


def predict(input_line, n_predictions=3):
    print("\n> %s" % input_line)
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))
        topv, topi = output.topk(n_predictions, 1, True)
        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print("(%.2f) %s" % (value, all_categories[category_index]))


predict("Rossini")
predict("Takamura")
predict("Kowalski")
print(math.exp(-criterion(evaluate(lineToTensor("Macdonald")), torch.tensor([3])).item()) > 0)
