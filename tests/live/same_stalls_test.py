#!/usr/bin/env python3
"""Shows that same_stalls.py fails what it must, on a live run's own files.

Usage: same_stalls_test.py RAW.json TEXT.json THRESHOLD_NS PROFILE RAW.dat TEXT.save

From the two runs' outputs and saves (as tests/live/raw.sh makes them), on a
stall of each run that only one stall of the other pairs with (50 µs), it
runs same_stalls.py on copies changed three ways and prints one "ok - ..."
or "FAIL - ..." line for each:
  - the stall dropped from the raw run's output, its records left in the
    trace.dat: a stall missing, which must fail;
  - the same for the text run's output and save;
  - the text run's stall dropped and its begin in the save moved to 1 µs
    before its end: the text instance stamped it below the threshold, which
    must pass, counted as such;
  - the same for every stall of the text run's smallest (pid, span) row
    that holds a raw stall 50 µs or more above the threshold, when another
    row is left to compare: a row the raw run has alone, all of whose
    stalls the text instance stamped below the threshold, which must pass.
"""
import json
import os
import subprocess
import sys
import tempfile

from same_stalls import CLEAR, NEAR, TEXT_LINE, profile_pairs

SAME_STALLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "same_stalls.py")


def spans(lines):
    return [(i, json.loads(line)) for i, line in enumerate(lines) if line.startswith('{"type":"span"')]


def alone(lines, others, threshold, pairs):
    """A stall of LINES, of one of PAIRS, well over the threshold that exactly
    one stall of OTHERS could pair with: its index and record, or None."""
    theirs = [s for _, s in spans(others)]
    for i, s in spans(lines):
        near = [o for o in theirs if (o["pid"], o["name"]) == (s["pid"], s["name"])
                and abs(o["end_ns"] - s["end_ns"]) < NEAR]
        if s["duration_ns"] >= threshold + 60_000 and len(near) == 1 and s["name"] in pairs:
            return i, s
    return None


def run(directory, raw, text, args, save):
    paths = [os.path.join(directory, name) for name in ("raw.json", "text.json")]
    for path, lines in zip(paths, (raw, text)):
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    result = subprocess.run([SAME_STALLS, *paths, args[2], args[3], args[4], save],
                            capture_output=True, text=True)
    return result.returncode, result.stdout


def main(args):
    pairs = profile_pairs(args[3])
    raw, text = [open(path).read().splitlines() for path in args[:2]]
    threshold = int(args[2])
    with open(args[5], errors="replace") as f:
        save = f.read().splitlines()
    failed = 0

    def check(good, what):
        nonlocal failed
        print(("ok - " if good else "FAIL - ") + what)
        failed += not good

    with tempfile.TemporaryDirectory() as directory:
        for name, lines in (("raw", raw), ("text", text)):
            found = alone(lines, text if name == "raw" else raw, threshold, pairs)
            if found is None:
                print(f"ok - same_stalls.py: no {name} stall stands alone to drop (not shown)")
                continue
            i, s = found
            changed = lines[:i] + lines[i + 1:]
            rc, out = run(directory, changed if name == "raw" else raw,
                          changed if name == "text" else text, args, args[5])
            check(rc == 1 and "1 missing" in out,
                  f"same_stalls.py fails a {s['duration_ns']} ns {s['name']} stall dropped from "
                  f"the {name} run's output (exit {rc})")
        found = alone(text, raw, threshold, pairs)
        if found is not None:
            i, s = found
            short, moved = shortened(directory, save, [s], pairs)
            rc, out = run(directory, raw, text[:i] + text[i + 1:], args, short)
            check(moved == 1 and rc == 0 and "1 the text instance stamped below" in out,
                  f"same_stalls.py passes a text stall its instance stamped 1 us long ({moved} "
                  f"begin moved, exit {rc})")
        clear = {(s["pid"], s["name"]) for _, s in spans(raw)
                 if s["duration_ns"] >= threshold + CLEAR}
        rows = {}
        for i, s in spans(text):
            if s["name"] in pairs and (s["pid"], s["name"]) in clear:
                rows.setdefault((s["pid"], s["name"]), []).append((i, s))
        if len(rows) < 2:
            print("ok - same_stalls.py: no text row to drop with another left (not shown)")
        else:
            row = min(rows.values(), key=len)
            short, moved = shortened(directory, save, [s for _, s in row], pairs)
            dropped = {i for i, _ in row}
            rc, out = run(directory, raw, [l for i, l in enumerate(text) if i not in dropped],
                          args, short)
            check(moved == len(row) and rc == 0 and "rows off: {}" in out,
                  f"same_stalls.py passes a (pid, span) row of {len(row)} stalls the raw run has "
                  f"alone, its text instance having stamped each 1 us long ({moved} begins "
                  f"moved, exit {rc})")
    return 1 if failed else 0


def shortened(directory, save, stalls, pairs):
    """A copy of the text run's save in which the begin of each of STALLS
    is moved to 1 µs before its end: its path, and how many begins moved."""
    save = list(save)
    starts = {(s["pid"], pairs[s["name"]][0], s["start_ns"]): s["end_ns"] for s in stalls}
    moved = 0
    for n, line in enumerate(save):
        m = TEXT_LINE.match(line)
        end = m and starts.get((int(m[1]), m[4], int(m[2]) * 10**9 + int(m[3]) * 1000))
        if end:
            late = end - 1000
            save[n] = (f"{line[:m.start(2)]}{late // 10**9}.{late % 10**9 // 1000:06d}"
                       f"{line[m.end(3):]}")
            moved += 1
    path = os.path.join(directory, "text.save")
    with open(path, "w") as f:
        f.write("\n".join(save) + "\n")
    return path, moved


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
