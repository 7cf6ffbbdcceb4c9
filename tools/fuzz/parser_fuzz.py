"""Parser fuzzer: mutations of valid StableHLO modules (the spec's examples
wrapped in a module, and `jit(...).lower().as_text()` of small programs) go
through parse -> print -> reparse -> compile -> run on reference and cpu in a
worker subprocess (worker.py); crashes and hangs are saved to
crashes/<hash>.mlir with the signal.

    python tools/fuzz/parser_fuzz.py --seed 1 --seconds 45
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pool import fuzz_main  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(ROOT, "tests", "conformance", "stablehlo_spec_examples.txt")

_SINGLE_OP = re.compile(
    r'^%(\w+)\s*=\s*"(stablehlo\.\w+)"\((.*?)\)(.*):\s*\((.*)\)\s*->\s*(tensor<[^>]*>)\s*$', re.S)


def _split_types(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def spec_seeds():
    """The spec's single-op examples with tensor operands, as modules."""
    seeds = []
    with open(SPEC) as f:
        blocks = f.read().split("\n----\n")
    for block in blocks:
        code = " ".join(l.strip() for l in block.splitlines()
                        if l.strip() and not l.lstrip().startswith(("#", "//")))
        m = _SINGLE_OP.match(code)
        if not m:
            continue
        _, op, operands, attrs, in_types, out_type = m.groups()
        names = [o.strip().lstrip("%") for o in operands.split(",") if o.strip()]
        types = _split_types(in_types)
        if len(names) != len(types) or not all(t.startswith("tensor<") for t in types):
            continue
        params = ", ".join(f"%{n}: {t}" for n, t in zip(names, types))
        seeds.append(
            f"module @m {{\n  func.func @main({params}) -> ({out_type}) {{\n"
            f"    %0 = \"{op}\"({operands}){attrs}: ({in_types}) -> {out_type}\n"
            f"    \"func.return\"(%0) : ({out_type}) -> ()\n  }}\n}}\n")
    return seeds


def lowered_seeds():
    import numpy as np
    import xjit
    import xjit.numpy as jnp
    from xjit import lax
    f32 = np.ones((2, 3), np.float32)
    programs = [
        (lambda a, b: jnp.tanh(a @ b.T + 1), f32, f32),
        (lambda a: jnp.sum(a * a, axis=1), f32),
        (lambda a: jnp.max(a, axis=0) - jnp.min(a), f32),
        (lambda a, b: jnp.where(a > b, a, -b), f32, f32),
        (lambda a: jnp.concatenate([a, a], axis=0).reshape(3, 4).T, f32),
        (lambda a: lax.pad(a, np.float32(0), [(1, 2, 1), (0, 1, 0)]), f32),
        (lambda a: a[1:, ::2] * 2, f32),
        (lambda a: jnp.cumsum(a, axis=1), f32),
        (lambda a: (a.astype(np.int32) // 3) % 2, f32),
        (lambda a: jnp.exp(a) / jnp.sum(jnp.exp(a), axis=-1, keepdims=True), f32),
        (lambda a: lax.slice(a, (1, 0), (2, 3), (1, 2)), f32),
        (lambda a: jnp.broadcast_to(a[:, :1], (2, 5)), f32),
    ]
    return [xjit.jit(p[0]).lower(*p[1:]).as_text() for p in programs]


_NUMBER = re.compile(r"(?<![\w%@#.])-?\d+(\.\d+)?")
_INTERESTING = ["0", "1", "-1", "2", "3", "7", "64", "255", "65536", "2147483647",
                "2147483648", "4294967296", "-2147483648", str(2**62), str(2**63 - 1),
                str(2**63), str(2**64), "-9223372036854775808", "100000000", "1e308",
                "nan", "0x7FC00000", "1.5"]
_TOKENS = ["tensor<", ">", "x", "(", ")", "{", "}", "[", "]", ",", ":", "->", "%0", "%1",
           "%arg0", "dense<", "array<i64: ", "i32", "f32", "i1", "ui8", "bf16", "f16",
           "i64", "f64", "complex<f32>", "\"", "\n", "// ", "\u00e9", "\x00", "\xff", "?",
           "stablehlo.add", "stablehlo.constant", "stablehlo.reduce", "func.return"]
_TYPES = ["f32", "f64", "i32", "i64", "i8", "ui8", "ui32", "i1", "bf16", "f16",
          "complex<f32>"]


def mutate(rng, text):
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        text = rng.choice(_MUTATORS)(rng, text)
    return text


def _numbers(rng, text):
    spots = list(_NUMBER.finditer(text))
    if not spots:
        return text
    m = rng.choice(spots)
    new = rng.choice(_INTERESTING + [str(rng.randrange(-5, 50)), str(int(m.group()
                     if m.group(1) is None else 1) * rng.choice([2, 10, 1000]))])
    return text[:m.start()] + new + text[m.end():]


def _dims(rng, text):
    """Changes one dimension of one tensor type, often to a huge value."""
    spots = list(re.finditer(r"tensor<((\d+x)*)", text))
    spots = [s for s in spots if s.group(1)]
    if not spots:
        return text
    m = rng.choice(spots)
    dims = m.group(1)[:-1].split("x")
    dims[rng.randrange(len(dims))] = rng.choice(
        ["0", "1", "5", str(2**31), str(2**32), str(2**62), str(2**63 - 1), "-1", "?"])
    return text[:m.start(1)] + "x".join(dims) + "x" + text[m.end(1):]


def _types(rng, text):
    spots = list(re.finditer(r"\b(f32|f64|i32|i64|i8|ui8|ui32|i1|bf16|f16)\b", text))
    if not spots:
        return text
    chosen = rng.choice(spots).group()
    new = rng.choice(_TYPES)
    if rng.random() < 0.5:  # all of one type: keeps the module consistent
        return re.sub(rf"\b{chosen}\b", new, text)
    m = rng.choice(spots)
    return text[:m.start()] + new + text[m.end():]


def _attribute_swap(rng, text):
    """Moves an attribute dictionary (or an array literal) from one place to another."""
    spots = list(re.finditer(r"\{[^{}\n]*\}|\[[^\[\]\n]*\]", text))
    if len(spots) < 2:
        return text
    a, b = rng.sample(spots, 2)
    if a.start() > b.start():
        a, b = b, a
    if a.end() > b.start():
        return text
    return text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() + text[b.end():]


def _bytes(rng, text):
    i = rng.randrange(len(text) + 1)
    r = rng.random()
    if r < 0.3:
        return text[:i] + text[i + rng.randrange(1, 8):]
    if r < 0.6:
        return text[:i] + rng.choice(_TOKENS) + text[i:]
    if r < 0.8:
        return text[:i] + chr(rng.randrange(1, 256)) + text[i + 1:]
    j = rng.randrange(len(text) + 1)
    k = min(len(text), j + rng.randrange(1, 80))
    return text[:i] + text[j:k] + text[i:]  # duplicate a span


def _lines(rng, text):
    lines = text.split("\n")
    if len(lines) < 4:
        return text
    i, j = rng.randrange(1, len(lines) - 1), rng.randrange(1, len(lines) - 1)
    if rng.random() < 0.5:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(i, lines[j])
    return "\n".join(lines)


def _op_swap(rng, text):
    ops = re.findall(r'"stablehlo\.(\w+)"', text)
    if not ops:
        return text
    new = rng.choice(["add", "multiply", "maximum", "divide", "remainder", "power",
                      "negate", "abs", "exponential", "tanh", "sqrt", "log", "convert",
                      "and", "or", "xor", "shift_left", "shift_right_arithmetic",
                      "select", "clamp", "reshape", "transpose", "reverse", "iota",
                      "slice", "pad", "concatenate", "broadcast_in_dim", "reduce",
                      "dot_general", "compare", "sort", "gather", "popcnt"])
    return text.replace(f'"stablehlo.{rng.choice(ops)}"', f'"stablehlo.{new}"', 1)


_MUTATORS = [_numbers, _numbers, _dims, _dims, _types, _attribute_swap, _bytes, _bytes,
             _lines, _op_swap]

_seeds = None


def make_case(rng):
    global _seeds
    if _seeds is None:
        _seeds = spec_seeds() + lowered_seeds()
    text = rng.choice(_seeds)
    if rng.random() < 0.95:
        text = mutate(rng, text)
    ops = sorted(set(re.findall(r'"(stablehlo\.\w+)"', text)))
    big = any(len(d) >= 10 for d in re.findall(r"tensor<([\dx]+)", text) for d in d.split("x"))
    return {"text": text, "seed": rng.randrange(2**31),
            "signature": ("huge-dims " if big else "") + ",".join(ops)[:120]}


def reproducer(case, header, history=None):
    header = header.replace("\n", "\n// ")  # a multi-line message stays a comment
    if not history:
        return f"// {header}\n// input seed {case['seed']}\n{case['text']}"
    # Several modules: run them in order with the worker's pipeline.
    body = "\n// ----- next module\n".join(c["text"] for c in history)
    return (f"// {header}\n// {len(history)} modules, in order; run them with\n"
            f"//   python tools/fuzz/replay.py THIS_FILE\n{body}")


if __name__ == "__main__":
    _seeds = spec_seeds() + lowered_seeds()
    sys.exit(fuzz_main("parser", __doc__, make_case, ".mlir", reproducer))
