#!/usr/bin/env python3
"""Writes the tuner's shape lists (row-major C[M x N] = A[M x K] . B[K x N], one `M N K` a line):
variants/shapes/train.txt (selection and training; the tuner splits it into train and test shapes)
and variants/shapes/unseen.txt, unseen-skinny.txt and unseen-random.txt (shapes never used in
training, for `fewfit evaluate`), two lists of extra training shapes for the trees: train-dense.txt
(random) and train-ml.txt (more networks), and train-trees.txt, train-tree-dense.txt and
train-tree-skinny.txt (yet more networks, random shapes over the whole space, and random shapes with
few rows or columns, measured only on the shipped set: tree training alone), and train-tree-tokens.txt
(the training networks at a fine grid of token counts, the same way).
Deterministic: run it again and the files come out the same."""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "variants", "shapes")


def transformer(name, d, ff, tokens, vocab=None):
    """Projections (QKV fused, output), MLP up and down, and the LM head, at each token count."""
    out = []
    for t in tokens:
        out += [(t, 3 * d, d, f"{name} qkv"), (t, d, d, f"{name} attn out"),
                (t, ff, d, f"{name} mlp up"), (t, d, ff, f"{name} mlp down")]
        if vocab:
            out.append((t, vocab, d, f"{name} lm head"))
    return out


def train():
    s = []
    grid = [256, 512, 1024, 4096]
    s += [(m, n, k, "papers' grid") for m in grid for n in grid for k in grid]
    s += [(x, x, x, "square") for x in [32, 64, 128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192]]
    s += [(x, x, x, "irregular") for x in [1000, 1023, 1025, 997, 2039, 3001]]
    s += [(127, 257, 509, "primes"), (331, 67, 1021, "primes"), (1009, 211, 97, "primes")]
    decode = [1, 2, 4, 8, 16]
    prefill = [32, 128, 512, 2048]
    s += transformer("BERT-base", 768, 3072, [128, 384, 512, 1024, 4096])
    s += transformer("GPT-2 medium", 1024, 4096, decode + prefill, vocab=50257)
    s += transformer("LLaMA-7B", 4096, 11008, [1, 8, 16, 128, 512], vocab=32000)
    s += transformer("LLaMA-13B", 5120, 13824, [1, 4, 32, 256])
    # Attention scores and P.V of one head (batched over heads at run time): d_head 64 and 128.
    for seq in [128, 512, 2048]:
        s += [(seq, seq, 64, "attention QK^T"), (seq, 64, seq, "attention PV"), (seq, 128, seq, "attention PV")]
    # ResNet-50 convolutions as im2col GEMMs, batch 1 and 8: (out pixels, out channels, in channels x kernel).
    convs = [(12544, 64, 147), (3136, 64, 576), (3136, 256, 64), (3136, 64, 256), (784, 128, 1152),
             (784, 512, 128), (196, 256, 2304), (196, 1024, 256), (49, 512, 4608), (49, 2048, 512)]
    s += [(p, c, k, "ResNet-50 conv") for p, c, k in convs]
    s += [(8 * p, c, k, "ResNet-50 conv batch 8") for p, c, k in convs if p <= 3136]
    # Split-K territory: small C, long K.
    s += [(64, 64, 16384, "small C, long K"), (16, 16, 65536, "small C, long K"), (128, 128, 32768, "small C, long K")]
    s += [(1, 4096, 4096, "GEMV"), (4096, 1, 4096, "GEMV"), (8, 4096, 4096, "decode")]
    return s


def unseen():
    s = []
    s += transformer("GPT-2 small", 768, 3072, [3, 24, 200, 1000], vocab=50257)
    s += transformer("Mistral-7B", 4096, 14336, [1, 4, 64, 300])
    s += [(x, x, x, "square") for x in [96, 640, 1500, 2500, 5000]]
    s += [(400, 1200, 700, "irregular"), (33, 777, 1234, "irregular"), (6000, 96, 640, "irregular")]
    s += [(100, 100, 20000, "small C, long K"), (3, 2000, 5000, "skinny")]
    return s


def dense(count, seed=7, max_flops=2e10):
    """Random shapes, each dimension log-uniform in [1, 16384] (seeded), at most `max_flops`:
    denser coverage of the shape space for training trees between the named networks' shapes."""
    rng, s = random.Random(seed), []
    while len(s) < count:
        m, n, k = (int(round(2 ** rng.uniform(0, 14))) for _ in range(3))
        if 2 * m * n * k <= max_flops:
            s.append((m, n, k, "random"))
    return s


def ml_dense():
    """Other real networks' GEMMs at a denser grid of token counts (1 to 4096): the transformer
    families between which the trees must interpolate, plus other CNNs' im2col GEMMs."""
    tokens = [1, 2, 5, 6, 12, 20, 48, 96, 160, 256, 640, 1536, 3000, 4096]
    s = []
    s += transformer("T5-base", 768, 3072, tokens, vocab=32128)
    s += transformer("BERT-large", 1024, 4096, tokens)
    s += transformer("Phi-2", 2560, 10240, tokens, vocab=51200)
    s += transformer("GPT-J", 4096, 16384, tokens, vocab=50400)
    s += transformer("LLaMA-2-70B (one shard of 8)", 1024, 3584, tokens, vocab=4000)
    # ResNet-18 and MobileNet-v2 pointwise convolutions as im2col GEMMs, batch 1 and 4.
    convs = [(12544, 64, 147), (3136, 64, 576), (784, 128, 576), (784, 128, 1152), (196, 256, 1152),
             (196, 256, 2304), (49, 512, 2304), (49, 512, 4608), (12544, 16, 32), (3136, 24, 96),
             (784, 32, 144), (196, 64, 192), (196, 96, 384), (49, 160, 576), (49, 320, 960), (49, 1280, 320)]
    s += [(b * p, c, k, "CNN conv") for b in (1, 4) for p, c, k in convs]
    return [x for x in s if 2 * x[0] * x[1] * x[2] <= 2e11]


def ml_trees():
    """More networks at token counts none of the held-out shapes uses (those are 1, 3, 4, 24, 64,
    200, 300 and 1000), for training the trees between the families above."""
    tokens = [2, 5, 7, 10, 14, 20, 28, 40, 56, 80, 112, 160, 224, 320, 448, 640, 896, 1280, 1792, 2560]
    s = []
    s += transformer("GPT-2 large", 1280, 5120, tokens, vocab=50257)
    s += transformer("OPT-1.3B", 2048, 8192, tokens, vocab=50272)
    s += transformer("Falcon-7B", 4544, 18176, tokens, vocab=65024)
    s += transformer("Qwen2-1.5B", 1536, 8960, tokens, vocab=151936)
    s += transformer("ViT-L/16", 1024, 4096, [197 * b for b in (1, 2, 4, 8)])
    return [x for x in s if 2 * x[0] * x[1] * x[2] <= 1e11]


def ml_tokens():
    """The training networks of train.txt and ml_trees() at a geometric grid of token counts (ratio
    2^(1/4), 1 to 4096) where neighbouring counts swap the set's winners, without the held-out
    counts (1, 3, 4, 24, 64, 200, 300, 1000) or the LM heads, for training the trees."""
    held_out = {1, 3, 4, 24, 64, 200, 300, 1000}
    tokens = sorted({round(2 ** (i / 4)) for i in range(49)} - held_out)
    s = []
    for name, d, ff in [("BERT-base", 768, 3072), ("GPT-2 medium", 1024, 4096), ("GPT-2 large", 1280, 5120),
                        ("OPT-1.3B", 2048, 8192), ("Phi-2", 2560, 10240), ("LLaMA-7B", 4096, 11008)]:
        s += transformer(name, d, ff, tokens)
    return [x for x in s if 2 * x[0] * x[1] * x[2] <= 1e11]


def tree_dense(count, seed=11, max_flops=1e11):
    """Tree-only random shapes over the whole space, half of them free (each dimension log-uniform
    in [1, 16384]) and half with N and K multiples of 64 (log-uniform in [64, 16384]) and M
    log-uniform in [1, 8192], as networks' layers have; seeded. They show the trees every region
    between the named networks' shapes (the tall, narrow C of a convolution, a long K, a few rows)."""
    rng, s = random.Random(seed), []
    while len(s) < count:
        if len(s) % 2 == 0:
            m, n, k = (int(round(2 ** rng.uniform(0, 14))) for _ in range(3))
            why = "random"
        else:
            m = int(round(2 ** rng.uniform(0, 13)))
            n, k = (64 * int(round(2 ** rng.uniform(0, 8))) for _ in range(2))
            why = "random, N and K multiples of 64"
        if 2 * m * n * k <= max_flops:
            s.append((m, n, k, why))
    return s


def tree_skinny(count, seed=13, max_flops=1e11):
    """Tree-only random shapes with few rows or few columns, where the direct kernel and the small
    tiles trade places with every row and with K: the short side log-uniform in [1, 64] (three in four
    with few rows, M, as decode and small-batch calls have; one in four with few columns, N), the long
    side log-uniform in [256, 262144] (vocabularies reach 152k), K log-uniform in [64, 16384]; seeded.
    train-tree-dense.txt stops at 16384 and holds few such shapes. An operand of 2^31 elements or
    more, beyond the kernels' index range, drops the shape."""
    rng, s = random.Random(seed), []
    while len(s) < count:
        short = int(round(2 ** rng.uniform(0, 6)))
        long_ = int(round(2 ** rng.uniform(8, 18)))
        k = int(round(2 ** rng.uniform(6, 14)))
        m, n = (short, long_) if len(s) % 4 else (long_, short)
        if 2 * m * n * k <= max_flops:
            s.append((m, n, k, "random, few rows" if m == short else "random, few columns"))
    # Dropped after the draws, so that the list keeps the shapes its first sweep timed.
    return [x for x in s if max(x[0] * x[2], x[2] * x[1]) < 2 ** 31]


def write(name, shapes, title):
    seen, lines = set(), [f"# {title}", "# M N K  (row-major C[MxN] = A[MxK] . B[KxN])  # source", "# @generated by scripts/make_shapes.py"]
    for m, n, k, why in shapes:
        if (m, n, k) not in seen:
            seen.add((m, n, k))
            lines.append(f"{m} {n} {k}  # {why}")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{name}: {len(seen)} shapes")


write("train.txt", train(), "Training shapes: grid, squares, irregular sizes, and real networks' GEMMs")
seen_train = {(m, n, k) for m, n, k, _ in train()}
write("unseen.txt", [x for x in unseen() if x[:3] not in seen_train], "Shapes never used in training")
seen_unseen = {(m, n, k) for m, n, k, _ in unseen()}
write("train-dense.txt", [x for x in dense(250) if x[:3] not in seen_train | seen_unseen],
      "More training shapes: random, log-uniform per dimension, for the selector trees")
write("train-ml.txt", [x for x in ml_dense() if x[:3] not in seen_train | seen_unseen],
      "More training shapes: other networks' GEMMs at more token counts, for the selector trees")
seen_ml = {(m, n, k) for m, n, k, _ in ml_dense()}
write("train-trees.txt", [x for x in ml_trees() if x[:3] not in seen_train | seen_unseen | seen_ml],
      "Tree-only training shapes: more networks' GEMMs at token counts no held-out shape uses")
seen_trees = {(m, n, k) for m, n, k, _ in ml_trees()}
write("train-tree-dense.txt",
      [x for x in tree_dense(3600) if x[:3] not in seen_train | seen_unseen | seen_ml | seen_trees],
      "Tree-only training shapes: random over the whole space (half with N and K multiples of 64)")
seen_dense = {(m, n, k) for m, n, k, _ in tree_dense(3600)}
write("train-tree-skinny.txt",
      [x for x in tree_skinny(1500)
       if x[:3] not in seen_train | seen_unseen | seen_ml | seen_trees | seen_dense],
      "Tree-only training shapes: random with few rows or few columns (the short side 1-64)")
seen_skinny = {(m, n, k) for m, n, k, _ in tree_skinny(1500)}
write("unseen-skinny.txt",
      [x for x in tree_skinny(400, seed=17)
       if x[:3] not in seen_train | seen_unseen | seen_ml | seen_trees | seen_dense | seen_skinny][:300],
      "Shapes never used in training: random with few rows or few columns, drawn as train-tree-skinny.txt")
write("unseen-random.txt",
      [x for x in tree_dense(400, seed=19)
       if x[:3] not in seen_train | seen_unseen | seen_ml | seen_trees | seen_dense | seen_skinny][:300],
      "Shapes never used in training: random over the whole space, drawn as train-tree-dense.txt")
seen_random = {(m, n, k) for m, n, k, _ in tree_dense(400, seed=19)}
write("train-tree-tokens.txt",
      [x for x in ml_tokens()
       if x[:3] not in seen_train | seen_unseen | seen_ml | seen_trees | seen_dense | seen_skinny | seen_random],
      "Tree-only training shapes: the training networks at a geometric grid of token counts")
