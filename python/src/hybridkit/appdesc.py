"""App descriptions: how a binary plugs into sweeps, studies, reports and the advisor.

One TOML file per app in hybridkit/apps/ (more directories: $HK_APPS_PATH, ':'-separated;
hybridkit.appcatalog finds, reads and checks them, a broken one is left out with one warning
naming the file and the field, the other apps work on); a new app needs a file, not code:

    name = "jacobi"                     # what `hybridkit sweep NAME` calls it
    binary = "hk-jacobi"                # looked up like `hybridkit run BINARY`
    description = "..."
    kind = "jacobi"                     # record kind that carries the metric
    args = ["--mode", "{mode}", ...]    # {param}, {ranks}, {threads}, {run_dir} substituted;
                                        # '--output FILE' is appended (output = "argument")
    output = "argument" | "none"        # how the binary learns where its records go:
                                        # '--output FILE' appended (the hk-* binaries), or
                                        # nothing on its command line (a user's program;
                                        # a preload may take {records} from env)
    env = {...}                         # optional, every rank gets it ({records}: the
                                        # run's records file, {run_dir} its directory)
    single_node_env = {HK_NODE_SIZE = "{node_size}"}   # only when running on one node
                                        # (virtual nodes); on several nodes it is dropped,
                                        # with the parameters only it uses
    oversubscribe = false               # may its fixed layouts exceed the cores
    oversubscribe_needs_yield = false   # only under an MPI whose waiting ranks yield the
                                        # core (Open MPI's mpirun --oversubscribe): a study
                                        # with an MPI that polls (MPICH, Intel MPI) leaves
                                        # its oversubscribed runs out, with a note
    report = ["scaling", ...]           # report sections fed by this app
    timeout = 300                       # seconds one run may take (--timeout overrides)
    study_order = 10                    # place in a study (lower first: the main application,
                                        # then benchmarks; default 1000, ties by name)
    [problem]  params = ["grid", ...]   # record parameters that define the problem: runs
                                        # with equal values solve the same problem and are
                                        # compared (every layout and mode); the others are
                                        # implementation choices or outputs, never grouped on
               size = "grid"            # the one ordered by its numeric size (the product of
                                        # its numbers, '160x160x160' > '64x64x64'), or by
               order = ["S", "W", ...]  # this list when given (NPB classes)
    [metric]   series = "mode", memory = "...", verified = "..."   (optional)
               An app's value, unit, better, time and breakdown come from the C
               declaration of its record kind (hk_kind_decl_t, one source;
               hybridkit/schemas/KIND.schema.json, see hybridkit.kinds): the
               description must not repeat them, and a kind that declares no metric
               is refused.  A user's program (kind = "program", written by `hybridkit
               profile`) is measured by the runner instead:
               value = "wall_time"  unit = "s"  better = "higher"|"lower"
               source = "wall" | "output"   (the runner's wall time of the launch, or
                                        `regex` (one group, the last match in stdout
                                        wins) over the program's output; the runner
                                        writes a record of kind "program" with results
                                        VALUE and wall_time)
               regex = 'Mop/s total *= *([0-9.]+)'   (source = "output")
    [quick] / [full]                    # parameter sets: param = [values...] and either
               cores = ["max"|"powers"|N...]     (every ranks x threads factorisation)
               or ranks = [...], threads = [...|"max"]   (fixed layouts; ranks per node)
    [constraints.PARAM.VALUE]  min_threads / max_threads / min_ranks / max_ranks
    [choices]  PARAM = [allowed values]       (checked for values given on the command line)
    [types]    PARAM = "integer" | "number" | "grid-edge"   (what the binary accepts: a
                                        positive integer, a positive number, a positive
                                        integer or llc*K; checked for the sets' values and
                                        for values given on the command line)
    usage_exit = 2                      # the binary's exit code for a usage error (bad
                                        # arguments: every hk-* binary exits 2); a sweep
                                        # stops at the first run that exits with it; 0: none
    [modes]    param = "mode"               # the parameter that takes hybrid modes; their
                                        # names and thread levels are the binary's
                                        # `--list-modes` (the C library's table), never
                                        # written here: "all" in a set stands for every
                                        # mode, a value given on the command line must be
                                        # one of them
               list = true                  # the parameter is one comma-separated list
                                        # ("all": every mode joined)
               subcommand = "halo"          # `BINARY halo --list-modes`
               single = {max_threads = 1}   # constraints of modes of thread level single
               threaded = {min_threads = 2} # ... and of the others
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from hybridkit import modes
from hybridkit.errors import HKError, UsageError
from hybridkit.kinds import kind_info


SETS = ("quick", "full")
PROGRAM_KIND = "program"  # the records the runner writes for a user's program (metric.source)
# an edge from the last-level cache (hybridkit.study.plan.resolve_value)
LLC_VALUE = re.compile(r"^llc\*(\d+(\.\d+)?)$")


def _positive_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _positive_number(v: Any) -> bool:
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return False
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and v != float("inf")


# [types]: what a parameter's values must be -> (meaning, check)
TYPES = {
    "integer": ("a positive integer", _positive_int),
    "number": ("a positive number", _positive_number),
    "grid-edge": ("a positive integer or llc*K (the edge of a grid taking K times the "
                  "last-level cache)",
                  lambda v: _positive_int(v) or (isinstance(v, str) and bool(LLC_VALUE.match(v))
                                                 and float(v[4:]) > 0)),
}
LAYOUT_KEYS = ("cores", "ranks", "threads")
CONSTRAINT_KEYS = ("min_threads", "max_threads", "min_ranks", "max_ranks")
# what a declared record kind says (hybridkit/schemas/KIND.schema.json), never its description
DECLARED_METRIC_KEYS = ("value", "unit", "better", "time", "breakdown")
SECTIONS = ("scaling", "breakdown", "memory", "pingpong", "beff", "ratio", "overlap",
            "barrier", "halo", "epsilon", "dsm", "looseness", "twolevel", "layout", "split")


@dataclass(frozen=True)
class Metric:
    value: str
    unit: str
    better: str = "higher"
    time: Optional[str] = None
    memory: Optional[str] = None
    breakdown: Tuple[str, ...] = ()
    series: Optional[str] = None
    verified: Optional[str] = None
    caption: str = ""                               # of the record kind, when declared
    meanings: Tuple[Tuple[str, str], ...] = ()      # field -> meaning, when declared
    source: str = "records"                         # records | wall | output
    regex: Optional[str] = None                     # source = "output": one group

    @property
    def higher_is_better(self) -> bool:
        return self.better == "higher"

    def meaning(self, name: str) -> Optional[str]:
        """What a field means, from the declaration of the record kind (None: undeclared)."""
        return dict(self.meanings).get(name)


@dataclass(frozen=True)
class Problem:
    """Which record parameters define the problem, and how problem sizes are ordered."""

    params: Tuple[str, ...] = ()
    size: Optional[str] = None
    order: Tuple[str, ...] = ()


# parameters that describe the layout or how a run was checked, never the problem
LAYOUT_PARAMS = ("threads", "procs", "ranks", "verification")
# what the runner's record of a user's program says about how it was run (hybridkit.study.program)
PROGRAM_INFO_PARAMS = ("command", "metric_source")


def numeric_size(value: Any) -> float:
    """The size a parameter value stands for: a number, or the product of the numbers in
    a text ('160x160x160' -> 4096000, '96^3' -> 884736); NaN when it holds none."""
    if isinstance(value, bool):
        return float("nan")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*\^\s*(\d+)\s*", text)
    if m:
        return float(m.group(1)) ** int(m.group(2))
    nums = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]
    if not nums:
        return float("nan")
    out = 1.0
    for n in nums:
        out *= n
    return out


@dataclass(frozen=True)
class ParamSet:
    """One [quick] or [full] table: the layout rule and the parameter values."""

    cores: Tuple[Any, ...] = ()
    ranks: Tuple[Any, ...] = ()
    threads: Tuple[Any, ...] = ()
    params: Dict[str, Tuple[Any, ...]] = field(default_factory=dict)

    @property
    def fixed_layout(self) -> bool:
        return bool(self.ranks or self.threads)


@dataclass(frozen=True)
class ModesRule:
    """The [modes] table: which parameter takes the binary's hybrid modes."""

    param: str
    joined: bool = False
    subcommand: Tuple[str, ...] = ()
    single: Dict[str, int] = field(default_factory=dict)
    threaded: Dict[str, int] = field(default_factory=dict)


def _fits(rule: Mapping[str, int], ranks: int, threads: int) -> bool:
    return (rule.get("min_threads", 1) <= threads <= rule.get("max_threads", threads)
            and rule.get("min_ranks", 1) <= ranks <= rule.get("max_ranks", ranks))


@dataclass(frozen=True)
class AppDesc:
    name: str
    binary: str
    description: str
    kind: str
    args: Tuple[str, ...]
    metric: Metric
    sets: Dict[str, ParamSet]
    env: Dict[str, str] = field(default_factory=dict)
    single_node_env: Dict[str, str] = field(default_factory=dict)
    oversubscribe: bool = False
    oversubscribe_needs_yield: bool = False
    report: Tuple[str, ...] = ()
    constraints: Dict[str, Dict[str, Dict[str, int]]] = field(default_factory=dict)
    choices: Dict[str, Tuple[Any, ...]] = field(default_factory=dict)
    problem: Problem = Problem()
    timeout: float = 600.0
    source: str = ""
    modes: Optional[ModesRule] = None
    study_order: int = 1000
    types: Dict[str, str] = field(default_factory=dict)
    usage_exit: int = 2
    output: str = "argument"  # '--output FILE' appended, or "none"

    @property
    def program(self) -> bool:
        """A user's program: its metric is measured by the runner (wall time or its
        output), not read from records it writes."""
        return self.metric.source != "records"

    def type_problem(self, name: str, value: Any) -> Optional[str]:
        """What is wrong with `value` for parameter `name` by its [types] entry, or None."""
        kind = self.types.get(name)
        if kind is None or TYPES[kind][1](value):
            return None
        return f"{name} {value!r} of {self.name}: expected {TYPES[kind][0]}"

    def mode_table(self):
        """The hybrid modes of the binary (`BINARY [subcommand] --list-modes`)."""
        return modes.table(self.binary, *(self.modes.subcommand if self.modes else ()))

    def values(self, name: str, value: Any) -> Tuple[Any, ...]:
        """The values a set's `value` of parameter `name` stands for: every mode for "all"
        of the modes parameter (joined by ',' for a list parameter), else itself."""
        if not self.modes or name != self.modes.param or value != "all":
            return (value,)
        names = [m.name for m in self.mode_table()]
        return (",".join(names),) if self.modes.joined else tuple(names)

    def allowed(self, name: str) -> Optional[Tuple[Any, ...]]:
        """The values a parameter may take ([choices], or the binary's modes), None: any."""
        if name in self.choices:
            return self.choices[name]
        if self.modes and name == self.modes.param and not self.modes.joined:
            return tuple(m.name for m in self.mode_table())
        return None

    def problem_key(self, params: Mapping[str, Any]) -> Tuple[Tuple[str, str], ...]:
        """The parameters of a record that define its problem, as a hashable key. Without a
        [problem] table: every parameter but the series and the layout."""
        if self.problem.params:
            return tuple((k, str(params.get(k))) for k in self.problem.params if k in params)
        return tuple(sorted((k, str(v)) for k, v in params.items()
                            if k != self.metric.series and k not in LAYOUT_PARAMS
                            and k not in PROGRAM_INFO_PARAMS))

    def problem_size(self, params: Mapping[str, Any]) -> Tuple[float, str]:
        """A sort key of the problem's size: larger problems sort later."""
        name = self.problem.size
        if not name or name not in params:
            return (0.0, "")
        value = params[name]
        if self.problem.order:
            order = [str(v) for v in self.problem.order]
            rank = order.index(str(value)) if str(value) in order else -1
            return (float(rank), str(value))
        size = numeric_size(value)
        return (size if size == size else 0.0, str(value))

    def param_names(self) -> List[str]:
        names: List[str] = []
        for s in self.sets.values():
            names += [n for n in s.params if n not in names]
        return names

    def allows(self, params: Mapping[str, Any], ranks: int, threads: int) -> bool:
        """Whether the constraints admit this combination."""
        for name, value in params.items():
            rule = self.constraints.get(name, {}).get(str(value))
            if rule and not _fits(rule, ranks, threads):
                return False
        if self.modes and not self.modes.joined and self.modes.param in params:
            value = str(params[self.modes.param])
            mode = next((m for m in self.mode_table() if m.name == value), None)
            if mode is None:
                raise UsageError(f"unknown {self.modes.param} {value!r} for {self.name} "
                                 f"(choose from {', '.join(m.name for m in self.mode_table())})")
            rule = self.modes.single if mode.single_threaded else self.modes.threaded
            if not _fits(rule, ranks, threads):
                return False
        return True

    def _context(self, params: Mapping[str, Any], ranks: int, threads: int) -> Dict[str, Any]:
        return {**params, "ranks": ranks, "threads": threads}

    def argv(self, params: Mapping[str, Any], ranks: int, threads: int,
             run_dir: Optional[str] = None) -> List[str]:
        """The binary's arguments for one run (without --output); {run_dir} is the run's
        directory (where its records go), '.' when none is given (a plan's display)."""
        ctx = {**self._context(params, ranks, threads), "run_dir": run_dir or "."}
        try:
            return [a.format(**ctx) for a in self.args]
        except KeyError as exc:
            raise HKError(f"{self.source}: args use {{{exc.args[0]}}}, which is no parameter")

    def rank_env(self, params: Mapping[str, Any], ranks: int, threads: int,
                 nodes: int = 1, records: Optional[str] = None) -> Dict[str, str]:
        """The extra environment of every rank (single_node_env only when nodes == 1);
        {records} is the run's records file, {run_dir} its directory."""
        ctx = {**self._context(params, ranks, threads), "records": records or "records.jsonl",
               "run_dir": str(Path(records).parent) if records else "."}
        env = {**self.env, **(self.single_node_env if nodes == 1 else {})}
        try:
            return {k: str(v).format(**ctx) for k, v in env.items()}
        except KeyError as exc:
            raise HKError(f"{self.source}: env uses {{{exc.args[0]}}}, which is no parameter")

    def single_node_params(self) -> List[str]:
        """Parameters used only by single_node_env (meaningless on several nodes)."""
        used = " ".join([*self.args, *self.env.values()])
        text = " ".join(self.single_node_env.values())
        return [p for p in self.param_names() if f"{{{p}}}" in text and f"{{{p}}}" not in used]


def _tuple(value: Any, where: str) -> Tuple[Any, ...]:
    if isinstance(value, list):
        if not value:
            raise HKError(f"{where}: empty list")
        return tuple(value)
    return (value,)


def _param_set(table: Mapping[str, Any], where: str) -> ParamSet:
    params = {k: _tuple(v, f"{where}.{k}") for k, v in table.items() if k not in LAYOUT_KEYS}
    layout = {k: _tuple(table[k], f"{where}.{k}") for k in LAYOUT_KEYS if k in table}
    if "cores" in layout and ("ranks" in layout or "threads" in layout):
        raise HKError(f"{where}: give 'cores' or 'ranks'/'threads', not both")
    if "cores" not in layout and not ("ranks" in layout and "threads" in layout):
        raise HKError(f"{where}: needs 'cores' or both 'ranks' and 'threads'")
    return ParamSet(params=params, **layout)


def regex_problem(regex: str) -> Optional[str]:
    """What makes `regex` unfit to take a metric from a program's output (it must compile
    and have exactly one group, around the number), or None."""
    try:
        groups = re.compile(regex).groups
    except re.error as exc:
        return f"{regex!r}: not a regular expression ({exc})"
    if groups != 1:
        return (f"{regex!r} has {groups} groups: give exactly one, around the number (e.g. "
                f"'Mop/s total\\s*=\\s*(\\S+)')")
    return None


def parse(data: Mapping[str, Any], source: str) -> AppDesc:
    """An AppDesc from the parsed TOML of `source`; HKError names what is wrong."""
    def need(key: str, table: Mapping[str, Any] = data, where: str = source) -> Any:
        if key not in table:
            raise HKError(f"{where}: missing '{key}'")
        return table[key]

    metric_t = data.get("metric", {})
    kind = need("kind")
    info = kind_info(kind, Path(source).parent) if isinstance(kind, str) else None
    if info is not None and info.metric:
        given = [k for k in DECLARED_METRIC_KEYS if k in metric_t]
        if given:
            raise HKError(f"{source}: metric.{', metric.'.join(given)}: declared in C for record "
                          f"kind {info.kind!r} (hybridkit/schemas/{info.kind}.schema.json), not here")
        metric = Metric(value=info.metric, unit=info.unit(info.metric) or "",
                        better=info.better or "higher", time=info.time,
                        memory=metric_t.get("memory"), breakdown=info.measured_phases,
                        series=metric_t.get("series"), verified=metric_t.get("verified"),
                        caption=info.caption, meanings=info.meanings)
    elif kind != PROGRAM_KIND:
        msource = metric_t.get("source", "records")
        if msource != "records":
            raise HKError(f"{source}: metric.source {msource!r}: the runner writes records of "
                          f"kind {PROGRAM_KIND!r}, so kind must be {PROGRAM_KIND!r}")
        raise HKError(f"{source}: record kind {kind!r} declares no metric: an app's metric, "
                      "unit and time breakdown are declared in C with its kind (hk_kind_decl_t, "
                      "hybridkit/schemas/KIND.schema.json, or the schema hk_kind_schema_write "
                      "writes put beside this file); a program that writes no records of its "
                      f"own uses kind = {PROGRAM_KIND!r} with metric.source")
    else:  # a user's program: the runner measures it (its wall time or a number it prints)
        better = metric_t.get("better", "higher")
        if better not in ("higher", "lower"):
            raise HKError(f"{source}: metric.better must be 'higher' or 'lower', not {better!r}")
        msource = metric_t.get("source", "records")
        regex = metric_t.get("regex")
        if msource not in ("wall", "output"):
            raise HKError(f"{source}: kind {PROGRAM_KIND!r} takes metric.source 'wall' or "
                          f"'output', not {msource!r}")
        if msource == "output":
            if not regex:
                raise HKError(f"{source}: metric.source 'output' needs metric.regex")
            problem = regex_problem(regex)
            if problem:
                raise HKError(f"{source}: metric.regex {problem}")
        elif regex:
            raise HKError(f"{source}: metric.regex needs metric.source = 'output'")
        if msource == "wall":  # the runner's wall time: seconds, lower is better
            metric_t = {**metric_t, "value": metric_t.get("value", "wall_time"),
                        "unit": metric_t.get("unit", "s")}
            better = metric_t.get("better", "lower")
        metric = Metric(value=need("value", metric_t, f"{source}: metric"),
                        unit=need("unit", metric_t, f"{source}: metric"), better=better,
                        time=metric_t.get("time"), memory=metric_t.get("memory"),
                        breakdown=tuple(metric_t.get("breakdown", ())),
                        series=metric_t.get("series"), verified=metric_t.get("verified"),
                        source=msource, regex=regex)
    sets = {name: _param_set(need(name), f"{source}: [{name}]") for name in SETS}
    report = tuple(data.get("report", ()))
    unknown = [s for s in report if s not in SECTIONS]
    if unknown:
        raise HKError(f"{source}: unknown report section(s) {', '.join(unknown)} "
                      f"(known: {', '.join(SECTIONS)})")
    constraints = data.get("constraints", {})
    for pname, values in constraints.items():
        for value, rule in values.items():
            bad = [k for k in rule if k not in CONSTRAINT_KEYS]
            if bad:
                raise HKError(f"{source}: constraints.{pname}.{value}: unknown {', '.join(bad)}")
    problem_t = data.get("problem", {})
    if not isinstance(problem_t, dict):
        raise HKError(f"{source}: [problem] must be a table")
    bad = [k for k in problem_t if k not in ("params", "size", "order")]
    if bad:
        raise HKError(f"{source}: problem: unknown {', '.join(bad)} (known: params, size, order)")
    problem = Problem(params=tuple(problem_t.get("params", ())), size=problem_t.get("size"),
                      order=tuple(problem_t.get("order", ())))
    if problem.size and problem.params and problem.size not in problem.params:
        raise HKError(f"{source}: problem.size {problem.size!r} is not in problem.params")
    modes_t = data.get("modes")
    modes = None
    if modes_t is not None:
        sub = modes_t.get("subcommand", ())
        modes = ModesRule(param=need("param", modes_t, f"{source}: modes"),
                          joined=bool(modes_t.get("list", False)),
                          subcommand=(sub,) if isinstance(sub, str) else tuple(sub),
                          single=dict(modes_t.get("single", {})),
                          threaded=dict(modes_t.get("threaded", {})))
    types = dict(data.get("types", {}))
    for pname, kind in types.items():
        if kind not in TYPES:
            raise HKError(f"{source}: types.{pname}: {kind!r} is no type ({', '.join(TYPES)})")
    for set_name, pset in sets.items():
        for pname, values in pset.params.items():
            for v in values:
                if pname in types and v != "all" and not TYPES[types[pname]][1](v):
                    raise HKError(f"{source}: [{set_name}] {pname} {v!r}: expected "
                                  f"{TYPES[types[pname]][0]} (types.{pname})")
    usage_exit = data.get("usage_exit", 2)
    timeout = data.get("timeout", 600)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise HKError(f"{source}: timeout must be a positive number of seconds")
    return AppDesc(name=need("name"), binary=need("binary"),
                   description=data.get("description", ""), kind=need("kind"),
                   args=tuple(need("args")), metric=metric, sets=sets,
                   env=dict(data.get("env", {})),
                   single_node_env=dict(data.get("single_node_env", {})),
                   oversubscribe=bool(data.get("oversubscribe", False)),
                   oversubscribe_needs_yield=bool(data.get("oversubscribe_needs_yield", False)),
                   report=report,
                   constraints=constraints,
                   choices={k: tuple(v) for k, v in data.get("choices", {}).items()},
                   problem=problem, timeout=float(timeout), source=source, modes=modes,
                   study_order=int(data.get("study_order", 1000)), types=types,
                   usage_exit=int(usage_exit), output=data.get("output", "argument"))
