#!/usr/bin/python3
"""Time a training step of heed's models in PyTorch, the way `heed bench` times heed's.

A step is forward with teacher forcing, loss, backward, gradient-norm clip at 1.0 and one Adam
update, on one fixed batch of the reverse task with every source --len long (docs/models.md,
configurations S and M). After --warmup untimed steps, each of --steps steps is timed alone;
the median and the 10th and 90th percentiles are reported, as heed bench does.

Memory, the same way on both sides: the growth of the peak resident set over the process after
start-up (importing torch) and model construction, through the optimiser's creation and every
step (the peak is reset through /proc/self/clear_refs, Linux 4.0 and later).

    /usr/bin/python3 bench_step.py --config M --model additive --dtype float32
    /usr/bin/python3 bench_step.py --sweep len=5,10,20,40 --model plain,additive --dtype float64

The last line of stdout is one JSON object; with --sweep, one JSON array of them, one per point,
each point timed in a process of its own (as `heed bench --sweep` does), so that each peak
memory figure is that point's alone.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

CONFIGS = {"S": dict(E=32, H=64, B=32, L=10), "M": dict(E=64, H=256, B=64, L=30)}
V = 10
SWEEP_LIMITS = {"len": 1000, "hidden": 4096, "batch": 100000}  # as heed bench's
MAX_SWEEP_VALUES = 16


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return float(line.split()[1])
    return -1.0


def reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def blas_library():
    """The BLAS shared library this process loaded (from /proc/self/maps)."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            name = os.path.basename(path)
            if name.startswith(("libblas", "libopenblas", "libblis", "libmkl_rt")):
                return os.path.realpath(path)
    return "unknown"


def percentile(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def parse_sweep(p, spec):
    """"len=5,10,20" -> ("len", [5, 10, 20]), or p.error naming what is wrong."""
    dim, _, values = spec.partition("=")
    if dim not in SWEEP_LIMITS:
        p.error(f"--sweep: unknown dimension {dim!r} (choose len, hidden or batch)")
    out = []
    for v in values.split(",") if values else []:
        if not v.isdigit():
            p.error(f"--sweep {dim}: {v!r} is not a whole number")
        if not 1 <= int(v) <= SWEEP_LIMITS[dim]:
            p.error(f"--sweep {dim}: {v} is out of range [1, {SWEEP_LIMITS[dim]}]")
        if out and int(v) <= out[-1]:
            p.error(f"--sweep {dim}: the values must increase ({v} after {out[-1]})")
        out.append(int(v))
    if not out:
        p.error(f"--sweep {dim}: no values (give them as --sweep {dim}=5,10,20)")
    if len(out) > MAX_SWEEP_VALUES:
        p.error(f"--sweep {dim}: {len(out)} values; at most {MAX_SWEEP_VALUES} a sweep")
    return dim, out


def sweep(p, a):
    """Each model and value in a child process of its own; their JSON objects as one array."""
    dim, values = parse_sweep(p, a.sweep)
    if getattr(a, dim) is not None:
        p.error(f"--sweep {dim} and --{dim} both set {dim}; give one")
    points = []
    for model in a.model.split(","):
        for v in values:
            args = [sys.executable, os.path.abspath(__file__), "--config", a.config, "--model", model, "--cell", a.cell,
                    "--dtype", a.dtype, "--threads", str(a.threads), "--steps", str(a.steps), "--warmup", str(a.warmup),
                    f"--{dim}", str(v)]
            for d in ("embed", "hidden", "batch", "len"):
                if d != dim and getattr(a, d) is not None:
                    args += [f"--{d}", str(getattr(a, d))]
            run = subprocess.run(args, stdout=subprocess.PIPE, text=True)
            if run.returncode != 0:
                sys.exit(run.returncode)
            lines = run.stdout.strip().splitlines()
            print("\n".join(lines[:-1]), flush=True)  # the point's text line
            points.append(json.loads(lines[-1]))
    print(json.dumps(points), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", choices=CONFIGS, default="S")
    p.add_argument("--model", default="additive", help="with --sweep, several: plain,additive,general")
    p.add_argument("--cell", choices=("gru", "lstm", "rnn"), default="gru")
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    p.add_argument("--threads", type=int, default=1,
                   help="intra-op threads; 0: PyTorch's own default (one per core)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    for d in ("embed", "hidden", "batch", "len"):
        p.add_argument(f"--{d}", type=int, help=f"override the configuration's {d}")
    p.add_argument("--sweep", metavar="DIM=V1,V2,...", help="time each value of len, hidden or batch")
    a = p.parse_args()
    for d in ("embed", "hidden", "batch", "len"):
        v = getattr(a, d)
        if v is not None and not 1 <= v <= SWEEP_LIMITS.get(d, 4096):
            p.error(f"--{d}: {v} is out of range [1, {SWEEP_LIMITS.get(d, 4096)}]")
    if a.sweep is not None:
        return sweep(p, a)
    if "," in a.model:
        p.error("--model: several models need --sweep")

    import torch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from models import NUM_SPECIALS, Seq2Seq, make_optimizer, matmul_flops_forward, reverse_batch, train_step

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    a.threads = torch.get_num_threads()  # what runs, reported in the JSON
    torch.set_default_dtype(getattr(torch, a.dtype))
    c = CONFIGS[a.config]
    B, L, E, H = c["B"], c["L"], c["E"], c["H"]
    B, L, E, H = a.batch or B, a.len or L, a.embed or E, a.hidden or H
    torch.manual_seed(0)
    model = Seq2Seq(a.model, V + NUM_SPECIALS, V + NUM_SPECIALS, E, H, cell=a.cell, max_src_len=L)
    batch = reverse_batch(V, B, L, torch.Generator().manual_seed(1))
    base_kb = status_kb("VmRSS")
    peak_reset = reset_peak_rss()
    optimizer = make_optimizer(model)

    # Wall time is the figure to compare; the thread's CPU time is reported beside it, as heed
    # bench does, because on a shared machine the wall clock also counts other processes' turns.
    ms, cpu_ms = [], []
    for i in range(a.warmup + a.steps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        train_step(model, optimizer, batch)
        t1 = time.perf_counter()
        c1 = time.process_time()
        if i >= a.warmup:
            ms.append((t1 - t0) * 1e3)
            cpu_ms.append((c1 - c0) * 1e3)

    hwm_kb = status_kb("VmHWM") if peak_reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    median = percentile(ms, 0.5)
    tokens = B * (L + 1)
    flops = 3 * matmul_flops_forward(a.model, a.cell, E, H, B, L, V + NUM_SPECIALS, max_src_len=L)
    out = {
        "program": "pytorch", "model": a.model, "cell": a.cell, "dtype": a.dtype, "threads": a.threads,
        "embed": E, "hidden": H, "batch": B, "len": L,
        "ms_per_step": median, "ms_p10": percentile(ms, 0.1), "ms_p90": percentile(ms, 0.9),
        "cpu_ms_per_step": percentile(cpu_ms, 0.5),
        "tokens_per_second": tokens / (median / 1e3), "gflops_per_second": flops / (median / 1e3) / 1e9,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "step_peak_mb": max(0.0, hwm_kb - base_kb) / 1024,
        "torch": torch.__version__, "blas": blas_library(),
    }
    print(f"{a.model:9s} {a.dtype} E {E} H {H} batch {B} len {L}: {median:8.2f} ms/step "
          f"[p10 {out['ms_p10']:.2f}, p90 {out['ms_p90']:.2f}] (cpu {out['cpu_ms_per_step']:.2f})  {out['tokens_per_second']:9.0f} tokens/s  "
          f"{out['gflops_per_second']:6.2f} GFLOP/s  peak RSS {out['peak_rss_mb']:.0f} MB "
          f"(steps +{out['step_peak_mb']:.1f} MB)  BLAS {out['blas']}")
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
