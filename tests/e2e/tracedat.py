"""A trace.dat as trace-cmd report reads it, for the VM test's checkers: an
independent decoder (trace-cmd's), none of allocwatch's code.

    records, unread = read_dat(PATH, BUFFER)   # BUFFER: an instance, "" the top level

`trace-cmd report -t` gives each record's exact timestamp (ns) and its fields
as the event's print format prints them; `trace-cmd report -t -R` the same
records, in the same order, with raw field values. A file with instances
prints every buffer's records, an instance's prefixed with `NAME: `: one
buffer's are kept. A funcgraph_exit's raw print (trace-cmd's function graph
handler) names the function and gives `calltime` and `rettime` in hex ns;
every other event keeps its printed fields (`info`) and its raw ones (`raw`,
strings). Lines that are not records (the header, lost-event notes) are
counted in `unread`, with the first few kept for messages. Raw numbers print
in decimal or, for some fields and kernels, in hex with 0x: `number()` reads
both. `read_functions(PATH)` is the file's symbol table (`trace-cmd report
-f`), address -> name, for raw fields that print as addresses.
"""
import re
import subprocess
from dataclasses import dataclass, field

TRACE_CMD = "trace-cmd"

# [BUFFER: ]  comm-pid  [cpu]  secs.nanosecs: event: info; an instance's
# lines name it first, the top level's start with the comm's padding;
# trace-cmd pads "event:" with spaces to a column, which are not the info's.
LINE = re.compile(r"^(?:(?P<buffer>[\w.-]+): )?\s*(?P<comm>.*?)-(?P<pid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+"
                  r"(?P<secs>\d+)\.(?P<ns>\d{9}):\s+(?P<name>\w+):\s*(?P<info>.*?)\s*$")
RAW_FIELD = re.compile(r"(\w+)=(\S*)")


@dataclass
class Record:
    index: int       # position in the file, as trace-cmd report orders records
    pid: int
    comm: str
    cpu: int
    ts: int          # ns
    name: str        # the event
    info: str        # fields as printed
    raw: dict = field(default_factory=dict)
    # funcgraph_exit only:
    func: str = ""
    calltime: int = 0
    rettime: int = 0

    @property
    def duration(self):
        return self.rettime - self.calltime


class DatError(Exception):
    pass


def report(path, *options):
    """trace-cmd report's lines for PATH with OPTIONS."""
    command = [TRACE_CMD, "report", "-t", *options, "-i", path]
    try:
        done = subprocess.run(command,
                              capture_output=True, text=True, errors="replace", check=False)
    except OSError as e:
        raise DatError(f"cannot run {TRACE_CMD}: {e.strerror}") from e
    if done.returncode != 0:
        raise DatError(f"{' '.join(command)} exited {done.returncode}: "
                       f"{' '.join(done.stderr.strip().splitlines()[-1:])}")
    return done.stdout.splitlines()


def read_dat(path, buffer=""):
    """(records, unread): every record of PATH's BUFFER (an instance's name;
    "" the top level) in trace-cmd report's order, and the lines that are
    not records. The other buffers' records are neither."""
    printed, raw = report(path), report(path, "-R")
    if len(printed) != len(raw):
        raise DatError(f"trace-cmd report printed {len(printed)} lines, with -R {len(raw)}")
    records, unread = [], []
    for text, raw_text in zip(printed, raw):
        m, r = LINE.match(text), LINE.match(raw_text)
        if not m or not r:
            unread.append(text)
            continue
        if (m["buffer"] or "") != buffer:
            continue
        head = (m["pid"], m["cpu"], m["secs"], m["ns"], m["name"])
        if head != (r["pid"], r["cpu"], r["secs"], r["ns"], r["name"]):
            raise DatError(f"trace-cmd report's two prints disagree: {text!r} and {raw_text!r}")
        rec = Record(index=len(records), pid=int(m["pid"]), comm=m["comm"], cpu=int(m["cpu"]),
                     ts=int(m["secs"]) * 1_000_000_000 + int(m["ns"]), name=m["name"],
                     info=m["info"], raw=dict(RAW_FIELD.findall(r["info"])))
        if rec.name == "funcgraph_exit":
            try:
                rec.func = rec.raw["func"]
                rec.calltime = int(rec.raw["calltime"], 16)
                rec.rettime = int(rec.raw["rettime"], 16)
            except (KeyError, ValueError) as e:
                raise DatError(f"a funcgraph_exit without func, calltime, rettime: {raw_text!r}") from e
        records.append(rec)
    return records, unread


def number(text):
    """A raw field's value: "12", "0x30"."""
    return int(text, 16) if text.startswith("0x") else int(text)


def read_functions(path):
    """{address: name} of PATH's symbols ("ffffffff926271b0 super_cache_scan
    [module]" lines)."""
    functions = {}
    for line in report(path, "-f"):
        words = line.split()
        if len(words) >= 2:
            try:
                functions[int(words[0], 16)] = words[1]
            except ValueError:
                continue
    return functions
