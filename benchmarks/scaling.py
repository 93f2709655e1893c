"""Cost as the work grows: time and peak memory of lime, the fast engine and the exact linear route, against d and n.

Setting: documents made by joining the 1000 Yelp reviews (lower-cased, so that every lime word has its own
TF-IDF column and the exact linear route applies) and cutting right after the d-th distinct word, for
d in D_GRID (the largest, 9938, is every distinct word of the lower-cased reviews: the corpus has no 10^4);
n in N_GRID perturbed samples; one explanation (label 1, kernel width 25) of a logistic regression fitted on
the default TfidfVectorizer of the reviews.  Methods:

* ``lime``: real lime (``lt.lime_explanations``: ``LimeTextExplainer`` with every word kept), the model
  called on lime's strings through the vectorizer;
* ``exact stream``: ``lt.fast_lime_explanations(stream="lime")``, lime's own random stream (checked equal to
  lime's coefficients at every point where lime runs);
* ``batched stream``: ``lt.fast_lime_explanations(stream="batched")``;
* ``beta_linear_exact``: the exact limit explanation of the model's linear score (no sampling: it does not
  depend on n), from ``tfidf_weights``;
* ``exact tree`` and ``exact forest``: the exact limit explanation (``lt.beta_tree_model``, from the law of s over
  the leaves) of a ``DecisionTreeClassifier`` and of a 100-tree ``RandomForestClassifier`` trained on the binary
  counts (``CountVectorizer(binary=True)``) of the same reviews; n-free.  Where lime ran at n = 5000 on the
  logistic model, lime also explains the tree model at n = 5000 in the same process, and the ratio is stored.

Each (method, d) runs in a fresh subprocess that measures, per n: wall and CPU time (median of up to three calls
while they are short) and the peak resident memory above the resident memory just before the call (Linux: the
high-water mark VmHWM reset through /proc/self/clear_refs; n grows within a process, and memory freed by a smaller
point may be reused without raising the mark, so small values understate). lime is skipped at a point when its CPU
time extrapolated linearly in n from the previous n (a lower bound: lime's work grows at least linearly in n)
exceeds LIME_LIMIT_SECONDS (CPU time, so that which points run does not depend on the load of a shared machine). The
machine (nproc, CPU model, versions) and the load average before the run and after each (method, d) are stored with
the results in benchmarks/results/scaling.json; the machine may be shared with other jobs, which inflates wall times
(the CPU times are the process's own). Then the figures of the book page "What it costs" (book/_static/costs-*.svg)
and its generated table (book/_generated/costs-results.md) are drawn from that file: ``--render`` redraws them from
the stored JSON without timing anything; ``--only METHOD ...`` times only those methods and merges their points
into the stored results (replacing that method's earlier points), recording the partial run's machine and load.
Run with ``make bench`` (about 15-20 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "scaling.json"
FIGURES = {quantity: ROOT / "book" / "_static" / f"costs-{quantity}.svg" for quantity in ("time", "memory")}
TABLE = ROOT / "book" / "_generated" / "costs-results.md"

D_GRID = (10, 100, 1000, 3000, 9938)
N_GRID = (300, 1000, 5000, 20000)
METHODS = ("lime", "exact stream", "batched stream", "beta_linear_exact")
#: the exact tree routes, on binary counts: method -> the model (DecisionTreeClassifier or a 100-tree forest)
TREE_METHODS = {"exact tree": 1, "exact forest": 100}
ALL_METHODS = (*METHODS, *TREE_METHODS)
#: lime explains the tree models at this n, where it ran at this n on the logistic model (same d)
TREE_LIME_N = 5000
KERNEL_WIDTH = 25
SEED = 0
LIME_LIMIT_SECONDS = 60.0
#: beta_linear_exact is skipped at d when its CPU time extrapolated as d^2 from the previous d exceeds this
EXACT_LIMIT_SECONDS = 60.0
REPEAT_BELOW_SECONDS = 1.0  # calls shorter than this are repeated (three calls, median)
#: one BLAS thread, as lime-heavy code runs best here (and as make sets it)
CHILD_ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


# ----------------------------------------------------------------------------- measuring (in the child process)


def _status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"{field} not in /proc/self/status")


def measure(action):
    """(result, wall seconds, CPU seconds, peak extra resident MiB or None) of one call of ``action``."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets VmHWM to the current resident size
        before = _status_kib("VmRSS")
    except OSError:
        before = None
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = None if before is None else max(0, _status_kib("VmHWM") - before) / 1024
    return result, wall, cpu, peak


def measure_repeated(action):
    """Median wall and CPU time over up to three calls (one when a call is long), largest peak memory."""
    result, wall, cpu, peak = measure(action)
    walls, cpus, peaks = [wall], [cpu], [peak]
    while len(walls) < 3 and sum(walls) < REPEAT_BELOW_SECONDS:
        _, wall, cpu, peak = measure(action)
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    peak = None if None in peaks else max(peaks)
    return result, statistics.median(walls), statistics.median(cpus), peak, len(walls)


def lowercase_reviews():
    import limetheory as lt

    reviews = lt.load_yelp_reviews()
    return [text.lower() for text in reviews.text], reviews.stars.to_numpy()


def joined_document(texts, d):
    """The reviews joined by spaces, cut right after the first occurrence of the d-th distinct lime word."""
    joined = " ".join(texts)
    seen = set()
    for match in re.finditer(r"\w+", joined):
        seen.add(match.group())
        if len(seen) == d:
            return joined[: match.end()]
    raise ValueError(f"the reviews have only {len(seen)} distinct words, fewer than d = {d}")


def tree_child(method, d, lime_n):
    """Measure the exact tree route at d (and lime on the same model at n = lime_n, if given); print one JSON line."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.tree import DecisionTreeClassifier

    import limetheory as lt
    import limetheory._validation as guards

    # the package refuses calls estimated above ~10 s of work; the memory limit (2 GiB) stays
    guards.WORK_LIMIT_FLOPS = float("inf")
    texts, stars = lowercase_reviews()
    vectorizer = CountVectorizer(binary=True).fit(texts)
    n_trees = TREE_METHODS[method]
    model = (
        DecisionTreeClassifier(random_state=SEED)
        if n_trees == 1
        else RandomForestClassifier(n_estimators=n_trees, random_state=SEED, n_jobs=1)
    ).fit(vectorizer.transform(texts), stars)
    text = joined_document(texts, d)
    assert len(lt.local_dictionary(text)) == d
    _, wall, cpu, peak, calls = measure_repeated(
        lambda: lt.beta_tree_model(model, vectorizer, text, nu=KERNEL_WIDTH / 100)
    )
    point = {"method": method, "d": d, "n": None, "wall": wall, "cpu": cpu, "peak_mib": peak, "calls": calls}
    if lime_n:

        def classifier_fn(documents):
            return model.predict_proba(vectorizer.transform(documents))

        _, lime_wall, lime_cpu, _, lime_calls = measure_repeated(
            lambda: lt.lime_explanations(
                text, classifier_fn, n_exp=1, num_samples=lime_n, kernel_width=KERNEL_WIDTH, random_state=SEED
            )
        )
        point.update(lime_n=lime_n, lime_wall=lime_wall, lime_cpu=lime_cpu, lime_calls=lime_calls)
    print(json.dumps(point), flush=True)


def child(method, d, n_values, lime_limit):
    """Measure one method at one d for every n; print one JSON line per point."""
    from sklearn.linear_model import LogisticRegression

    import limetheory as lt
    from limetheory.book import fit_yelp_vectorizer
    from limetheory.engine.tokens import tfidf_columns, tfidf_weights

    texts, stars = lowercase_reviews()
    vectorizer = fit_yelp_vectorizer(texts)
    model = LogisticRegression(max_iter=1000).fit(vectorizer.transform(texts), stars)
    text = joined_document(texts, d)
    assert len(lt.local_dictionary(text)) == d
    arguments = dict(n_exp=1, kernel_width=KERNEL_WIDTH, label=1, random_state=SEED)

    def emit(**point):
        print(json.dumps({"method": method, "d": d, **point}), flush=True)

    if method == "beta_linear_exact":
        import limetheory._validation as guards

        # the package refuses calls estimated above ~10 s; here the parent keeps its own budget (EXACT_LIMIT_SECONDS)
        guards.WORK_LIMIT_FLOPS = float("inf")
        columns = tfidf_columns(text, vectorizer)
        lam = np.where(columns >= 0, model.coef_[0][np.maximum(columns, 0)], 0.0)
        tfidf = tfidf_weights(text, vectorizer)
        _, wall, cpu, peak, calls = measure_repeated(lambda: lt.beta_linear_exact(lam, tfidf, nu=KERNEL_WIDTH / 100))
        emit(n=None, wall=wall, cpu=cpu, peak_mib=peak, calls=calls)
        return

    def classifier_fn(documents):
        return model.predict_proba(vectorizer.transform(documents))

    previous = None  # (n, CPU seconds) of lime's last measured point: the rule does not depend on the load
    for n in n_values:
        if method == "lime":
            if previous is not None and previous[1] * n / previous[0] > lime_limit:
                estimate = previous[1] * n / previous[0]
                emit(n=n, skipped=f"lime's CPU time extrapolated linearly from n = {previous[0]} is {estimate:.0f} s "
                                  f"(a lower bound), above the limit of {lime_limit:.0f} s")  # fmt: skip
                continue
            coefficients, wall, cpu, peak, calls = measure_repeated(
                lambda n=n: lt.lime_explanations(text, classifier_fn, num_samples=n, **arguments)
            )
            previous = (n, cpu)
            # the exact stream must give lime's coefficients (same seed, same stream): checked here, untimed
            ours = lt.fast_lime_explanations(text, vectorizer, model.predict_proba, num_samples=n, **arguments)
            difference = float(np.abs(ours - coefficients).max())
            emit(n=n, wall=wall, cpu=cpu, peak_mib=peak, calls=calls, exact_stream_max_difference=difference,
                 max_coefficient=float(np.abs(coefficients).max()))  # fmt: skip
        else:
            stream = "lime" if method == "exact stream" else "batched"
            _, wall, cpu, peak, calls = measure_repeated(
                lambda n=n, stream=stream: lt.fast_lime_explanations(
                    text, vectorizer, model.predict_proba, num_samples=n, stream=stream, **arguments
                )
            )
            emit(n=n, wall=wall, cpu=cpu, peak_mib=peak, calls=calls)


# ----------------------------------------------------------------------------- the run (parent process)


def machine():
    import lime
    import scipy
    import sklearn

    model = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "system": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "lime": getattr(lime, "__version__", None) or _distribution_version("lime"),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "1"),
        "shared": "the machine may be shared with other jobs: wall times include waiting for a core",
    }


def _distribution_version(name):
    from importlib.metadata import version

    return version(name)


def _lime_ran(points, d, n):
    return any(p["method"] == "lime" and p["d"] == d and p["n"] == n and "skipped" not in p for p in points)


def run_all(d_grid, n_grid, lime_limit, methods=ALL_METHODS, stored_points=()):
    """Time ``methods`` at every d; ``stored_points`` tell where lime ran when lime itself is not re-timed."""
    points = []
    loads = [os.getloadavg()]
    started = time.perf_counter()
    exact_previous = None  # (d, CPU seconds) of beta_linear_exact's last measured point
    for d in d_grid:
        for method in methods:
            if method in TREE_METHODS:
                lime_n = TREE_LIME_N if _lime_ran([*stored_points, *points], d, TREE_LIME_N) else 0
                command = [sys.executable, __file__, "--child", method, str(d), str(lime_n), str(lime_limit)]
                completed = subprocess.run(
                    command, capture_output=True, text=True, env={**os.environ, **CHILD_ENVIRONMENT}
                )
                new = [json.loads(line) for line in completed.stdout.splitlines()]
                if completed.returncode != 0:  # e.g. the memory limit of the d x d moments: recorded as skipped
                    reason = (completed.stderr.strip().splitlines() or ["no message"])[-1]
                    new.append({"method": method, "d": d, "n": None, "skipped": f"the measurement failed: {reason}"})
                for point in new:
                    points.append(point)
                    print(describe(point), flush=True)
                loads.append(os.getloadavg())
                continue
            if method == "beta_linear_exact" and exact_previous is not None:
                estimate = exact_previous[1] * (d / exact_previous[0]) ** 2
                if estimate > EXACT_LIMIT_SECONDS:
                    reason = (
                        f"its CPU time extrapolated as d^2 from d = {exact_previous[0]} is {estimate:.0f} s, "
                        f"above the limit of {EXACT_LIMIT_SECONDS:.0f} s"
                    )
                    point = {"method": method, "d": d, "n": None, "skipped": reason}
                    points.append(point)
                    print(describe(point), flush=True)
                    continue
            command = [sys.executable, __file__, "--child", method, str(d), ",".join(map(str, n_grid)),
                       str(lime_limit)]  # fmt: skip
            completed = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **CHILD_ENVIRONMENT})
            for line in completed.stdout.splitlines():
                point = json.loads(line)
                points.append(point)
                print(describe(point), flush=True)
                if method == "beta_linear_exact" and "cpu" in point:
                    exact_previous = (d, point["cpu"])
            if completed.returncode != 0:  # recorded, and the run goes on: one failure must not lose the others
                reason = (completed.stderr.strip().splitlines() or ["no message"])[-1]
                point = {"method": method, "d": d, "n": None, "skipped": f"the measurement failed: {reason}"}
                points.append(point)
                print(describe(point), flush=True)
            loads.append(os.getloadavg())
    elapsed = time.perf_counter() - started
    return {
        "machine": machine(),
        "load_average_1min": [round(load[0], 2) for load in loads],
        "wall_seconds_total": round(elapsed, 1),
        "settings": {
            "d": list(d_grid),
            "n": list(n_grid),
            "kernel_width": KERNEL_WIDTH,
            "seed": SEED,
            "lime_limit_seconds": lime_limit,
            "exact_limit_seconds": EXACT_LIMIT_SECONDS,
            "model": "LogisticRegression(max_iter=1000) on the default "
            "TfidfVectorizer of the 1000 lower-cased Yelp reviews",
            "tree_models": "DecisionTreeClassifier(random_state=0) and RandomForestClassifier(n_estimators=100, "
            "random_state=0) on CountVectorizer(binary=True) of the same reviews; lime on them at n = 5000",
            "explanations": 1,
        },  # fmt: skip
        "points": points,
    }


def describe(point):
    where = f"{point['method']:>17}  d = {point['d']:5d}  n = {point['n'] if point['n'] else '-':>5}"
    if "skipped" in point:
        return f"{where}  skipped: {point['skipped']}"
    memory = "" if point["peak_mib"] is None else f"  peak +{point['peak_mib']:8.1f} MiB"
    lime = ""
    if "lime_cpu" in point:
        lime = f"  lime (n = {point['lime_n']}) cpu {point['lime_cpu']:8.3f} s: {point['lime_cpu'] / point['cpu']:.1f}x"
    return f"{where}  wall {point['wall']:8.3f} s  cpu {point['cpu']:8.3f} s{memory}{lime}"


# ----------------------------------------------------------------------------- analysis


def measured(results, method):
    return [p for p in results["points"] if p["method"] == method and "skipped" not in p]


def ratios(results, key="cpu"):
    """{(d, n): lime time / method time} for both streams, where lime ran."""
    lime = {(p["d"], p["n"]): p[key] for p in measured(results, "lime")}
    out = {}
    for method in ("exact stream", "batched stream"):
        for p in measured(results, method):
            if (p["d"], p["n"]) in lime:
                out[method, p["d"], p["n"]] = lime[p["d"], p["n"]] / p[key]
    return out


def growth_exponents(results, method, key="cpu", d_min=1000):
    """Least-squares exponents (a, b) in time ~ d^a n^b over the points with d >= d_min (b None without n)."""
    points = [p for p in measured(results, method) if p["d"] >= d_min]
    if len(points) < 2:
        return None, None
    log_t = np.log([p[key] for p in points])
    log_d = np.log([p["d"] for p in points])
    if points[0]["n"] is None:
        slope = np.polyfit(log_d, log_t, 1)[0]
        return float(slope), None
    log_n = np.log([p["n"] for p in points])
    design = np.column_stack([np.ones_like(log_d), log_d, log_n])
    if np.linalg.matrix_rank(design) < 3:
        return None, None
    coefficients = np.linalg.lstsq(design, log_t, rcond=None)[0]
    return float(coefficients[1]), float(coefficients[2])


def summary_lines(results):
    lines = []
    for (method, d, n), ratio in sorted(ratios(results).items(), key=lambda item: (item[0][1], item[0][2])):
        lines.append(f"ratio lime / {method:<14} d = {d:5d}  n = {n:5d}: {ratio:7.1f}x (CPU time)")
    for method in TREE_METHODS:
        for p in measured(results, method):
            if "lime_cpu" in p:
                lines.append(f"ratio lime / {method:<14} d = {p['d']:5d}  n = {p['lime_n']:5d}: "
                             f"{p['lime_cpu'] / p['cpu']:7.1f}x (CPU time, the same tree model)")  # fmt: skip
    for method in ALL_METHODS:
        a, b = growth_exponents(results, method)
        if a is not None:
            lines.append(f"growth of {method:<17}: time ~ d^{a:.2f}" + ("" if b is None else f" n^{b:.2f}") +
                         " (least squares over d >= 1000)")  # fmt: skip
    return lines


# ----------------------------------------------------------------------------- figures and table for the book

COLOURS = {
    "lime": "#d1495b",
    "exact stream": "#2e86ab",
    "batched stream": "#3bb273",
    "beta_linear_exact": "#e09f3e",
    "exact tree": "#8e6cbf",
    "exact forest": "#b5651d",
}
MARKERS = {"lime": "o", "exact stream": "s", "batched stream": "^", "beta_linear_exact": "D", "exact tree": "v",
           "exact forest": "P"}  # fmt: skip
GREY = "#8a8a8a"  # readable on a white and on a dark page


def machine_line(results):
    m = results["machine"]
    loads = results["load_average_1min"]
    return (f"{m['nproc']} cores ({m['cpu_model']}), {m['system']}, Python {m['python']}, numpy {m['numpy']}, "
            f"scikit-learn {m['scikit-learn']}, lime {m['lime']}, one BLAS thread; load average "
            f"{min(loads):.1f} to {max(loads):.1f} during the run (the machine was shared with other jobs)"
            )  # fmt: skip


def render_figure(results, quantity, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if quantity == "time":
        key, label = "cpu", "CPU seconds per explanation"
    else:
        key, label = "peak_mib", "peak extra memory (MiB)"
    n_grid = results["settings"]["n"]
    style = {"axes.edgecolor": GREY, "axes.labelcolor": GREY, "xtick.color": GREY, "ytick.color": GREY,
             "text.color": GREY, "svg.hashsalt": "limetheory", "font.size": 9}  # fmt: skip
    with plt.rc_context(style):
        columns = 2  # two panels a row: readable in the book's text column
        rows = -(-len(n_grid) // columns)
        figure, axes = plt.subplots(rows, columns, figsize=(7.0, 2.9 * rows), sharex=True, sharey=True, squeeze=False)
        axes = axes.ravel()
        for ax in axes[len(n_grid) :]:
            ax.set_visible(False)
        for ax, n in zip(axes, n_grid, strict=False):
            for method in ALL_METHODS:
                points = sorted(
                    (p for p in measured(results, method) if p["n"] in (n, None) and (p.get(key) or 0) > 0),
                    key=lambda p: p["d"],
                )
                if points:
                    ax.plot([p["d"] for p in points], [p[key] for p in points], marker=MARKERS[method],
                            color=COLOURS[method], label=method, markersize=4, linewidth=1.5)  # fmt: skip
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"n = {n}")
            ax.set_xlabel("d (distinct words)")
            ax.xaxis.set_tick_params(labelbottom=True)
            ax.grid(True, which="major", color=GREY, alpha=0.25)
            ax.set_facecolor("none")
        for ax in axes[::columns]:
            ax.set_ylabel(label)
        handles, labels = axes[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 3), frameon=False,
                      bbox_to_anchor=(0.5, -0.02))  # fmt: skip
        figure.tight_layout(rect=(0, 0.06, 1, 1))
        figure.patch.set_alpha(0)
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(
            path, format="svg", metadata={"Date": None, "Creator": None}, transparent=True, bbox_inches="tight"
        )
        plt.close(figure)


def table_markdown(results):
    """The generated Markdown the book page includes: the machine and every measured point."""
    by_point = {(p["method"], p["d"], p["n"]): p for p in results["points"]}
    ratio = ratios(results)
    lines = [
        f"Measured on {machine_line(results)}; the whole run took {results['wall_seconds_total'] / 60:.0f} minutes.",
        "",
        "| d | n | lime | exact stream | batched stream | ratio (exact) | ratio (batched) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(method, d, n):
        p = by_point.get((method, d, n))
        if p is None or "skipped" in p:
            return "skipped"
        memory = "" if p["peak_mib"] is None else f" / {p['peak_mib']:.0f} MiB"
        return f"{p['cpu']:.3g} s{memory}"

    for d in results["settings"]["d"]:
        for n in results["settings"]["n"]:
            shown = [ratio.get((method, d, n)) for method in ("exact stream", "batched stream")]
            shown = ["–" if value is None else f"{value:.1f}×" for value in shown]
            lines.append(
                f"| {d} | {n} | {cell('lime', d, n)} | {cell('exact stream', d, n)} | {cell('batched stream', d, n)} "
                f"| {shown[0]} | {shown[1]} |"
            )
    lines += ["", "| d | beta_linear_exact |", "|---:|---:|"]
    for d in results["settings"]["d"]:
        lines.append(f"| {d} | {cell('beta_linear_exact', d, None)} |")
    if any(p["method"] in TREE_METHODS for p in results["points"]):
        lines += [
            "",
            f"Exact tree routes (`beta_tree_model`) and lime on the same tree model at n = {TREE_LIME_N}: "
            f"{results['settings'].get('tree_models', '')}.",
            "",
            "| d | exact tree | lime on the tree | ratio | exact forest | lime on the forest | ratio |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]

        def tree_cells(method, d):
            p = by_point.get((method, d, None))
            if p is None or "skipped" in p:
                return ["skipped", "–", "–"]
            if "lime_cpu" not in p:
                return [cell(method, d, None), "not run", "–"]
            return [cell(method, d, None), f"{p['lime_cpu']:.3g} s", f"{p['lime_cpu'] / p['cpu']:.1f}×"]

        for d in results["settings"]["d"]:
            lines.append(
                "| " + " | ".join([str(d), *tree_cells("exact tree", d), *tree_cells("exact forest", d)]) + " |"
            )
    skipped = [p for p in results["points"] if "skipped" in p]
    if skipped:
        lines += ["", "Skipped points:", ""]
        lines += [
            # the stored reasons are plain text ("as d^2"): the page shows the power as a superscript
            f"- {p['method']} at d = {p['d']}"
            + (f", n = {p['n']}" if p["n"] else "")
            + f": {p['skipped']}.".replace("d^2", "d²")
            for p in skipped
        ]
    lines += ["", "Fitted growth (least squares of log CPU time over the points with d ≥ 1000):", ""]
    for method in ALL_METHODS:
        a, b = growth_exponents(results, method)
        if a is not None:
            lines.append(f"- {method}: time ∝ $d^{{{a:.2f}}}" + ("" if b is None else f"\\, n^{{{b:.2f}}}") + "$")
    return "\n".join(lines) + "\n"


def render(results):
    for quantity, path in FIGURES.items():
        render_figure(results, quantity, path)
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(table_markdown(results))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--render", action="store_true", help="redraw the book's figures from the stored JSON only")
    parser.add_argument("--child", nargs=4, metavar=("METHOD", "D", "NS", "LIMIT"), help=argparse.SUPPRESS)
    parser.add_argument("--lime-limit", type=float, default=LIME_LIMIT_SECONDS)
    parser.add_argument(
        "--only", nargs="+", choices=ALL_METHODS, help="time only these methods and merge them into the stored results"
    )
    arguments = parser.parse_args(argv)
    if arguments.child:
        method, d, ns, limit = arguments.child
        if method in TREE_METHODS:
            tree_child(method, int(d), int(ns))
        else:
            child(method, int(d), [int(n) for n in ns.split(",")], float(limit))
        return
    if arguments.render:
        results = json.loads(RESULTS.read_text())
    elif arguments.only:
        results = json.loads(RESULTS.read_text())
        d_grid, n_grid = results["settings"]["d"], results["settings"]["n"]
        partial = run_all(d_grid, n_grid, arguments.lime_limit, arguments.only, results["points"])
        results["points"] = [p for p in results["points"] if p["method"] not in arguments.only] + partial["points"]
        results.setdefault("partial_runs", []).append(
            {key: partial[key] for key in ("machine", "load_average_1min", "wall_seconds_total")}
            | {"methods": arguments.only}
        )
        results["settings"].update({k: v for k, v in partial["settings"].items() if k not in ("d", "n")})
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        print(f"merged {', '.join(arguments.only)} into {RESULTS.relative_to(ROOT)}")
    else:
        results = run_all(D_GRID, N_GRID, arguments.lime_limit)
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        print(f"wrote {RESULTS.relative_to(ROOT)}")
    print("\n".join(summary_lines(results)))
    render(results)
    print(f"wrote {', '.join(str(p.relative_to(ROOT)) for p in [*FIGURES.values(), TABLE])}")


if __name__ == "__main__":
    main()
