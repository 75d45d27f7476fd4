#!/usr/bin/env python3
"""Does KernelShark's library read a trace.dat as trace-cmd report does?

    agrees.py KSHARK_RECORDS DAT [KSHARK_OUTPUT]

KSHARK_RECORDS is the built tests/kshark/kshark_records.c; DAT a trace.dat
whose records are in its top-level buffer (a raw run's --save). Each
reader's records of DAT, as (ns, cpu, pid, event), must be the same
multiset, and KernelShark must see no lost events where trace-cmd reports
none. KSHARK_OUTPUT, when given, is read instead of running KSHARK_RECORDS
(the tests' way to hand it a doctored reading). Prints one line, "ok - ..."
or "FAIL - ..." with the first differences; exit 0 if they agree, 1 if
not, 2 if either reader cannot read DAT.
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import tracedat  # noqa: E402  trace-cmd report's reading


def kshark_records(lines):
    """(records, missed) from kshark-records' output lines."""
    head = lines[0].split() if lines else []
    if len(head) != 4 or head[0] != "records" or head[2] != "missed":
        raise ValueError(f"not kshark-records' output: {lines[:1]!r}")
    records = collections.Counter()
    for line in lines[1:]:
        ts, cpu, pid, name = line.split(" ", 3)
        records[(int(ts), int(cpu), int(pid), name.rsplit("/", 1)[-1])] += 1
    if sum(records.values()) != int(head[1]):
        raise ValueError(f"kshark-records says {head[1]} records and lists {sum(records.values())}")
    return records, int(head[3])


def shown(counter, limit=3):
    keys = sorted(counter.elements())[:limit]
    return ", ".join(f"{ts} cpu {cpu} pid {pid} {name}" for ts, cpu, pid, name in keys)


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    reader, dat = argv[1], argv[2]
    try:
        if len(argv) == 4:
            with open(argv[3], encoding="utf-8") as f:
                lines = f.read().splitlines()
        else:
            done = subprocess.run([reader, dat], capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"FAIL - KernelShark's library cannot read {dat}: {done.stderr.strip()}")
                return 2
            lines = done.stdout.splitlines()
        kshark, missed = kshark_records(lines)
        records, unread = tracedat.read_dat(dat)
    except (OSError, ValueError, tracedat.DatError) as e:
        print(f"FAIL - cannot compare the readings of {dat}: {e}")
        return 2
    trace_cmd = collections.Counter((r.ts, r.cpu, r.pid, r.name) for r in records)
    dropped = [line for line in unread if "EVENTS DROPPED" in line or "LOST" in line]
    only_kshark, only_trace_cmd = kshark - trace_cmd, trace_cmd - kshark
    if only_kshark or only_trace_cmd or (missed and not dropped):
        problems = []
        if only_kshark:
            problems.append(f"{sum(only_kshark.values())} only KernelShark reads "
                            f"({shown(only_kshark)})")
        if only_trace_cmd:
            problems.append(f"{sum(only_trace_cmd.values())} only trace-cmd reads "
                            f"({shown(only_trace_cmd)})")
        if missed and not dropped:
            problems.append(f"KernelShark sees {missed} lost-event entries, trace-cmd none")
        print(f"FAIL - KernelShark's library and trace-cmd report read {dat} apart: "
              + "; ".join(problems))
        return 1
    print(f"ok - KernelShark's library reads the {sum(kshark.values())} records of {dat} "
          f"that trace-cmd report reads")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
