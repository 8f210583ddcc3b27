"""SimGrid platforms for `hybridkit simulate`: a cluster of multi-CPU nodes as SimGrid XML.

Every CPU (core) is a SimGrid host; a node is a group of hosts.  The model (docs/simulate.md):

    CPU c of node n --inj(n,c)--+                                   +--inj(m,d)-- CPU d of node m
     (private link, split       +--nic(n,k)--[ switch ]--nic(m,l)--+
      duplex, bandwidth =         (split duplex, link_bw; CPU c uses NIC k = c mod K)
      cpu_injection)

  * inj(n,c): what one CPU can push into (or pull from) the network and its memory: every
    message the CPU sends or receives crosses it, intra-node ones too.  cpu_injection=None:
    unlimited (100 x link_bw).  This is the "one CPU cannot saturate the node's link" limit.
  * nic(n,k): the node's K adapters (nic_per_node), each used by the CPUs c with c mod K == k.
  * the switch is non-blocking: routes between nodes cross only the two NIC links.
  * intra-node messages: inj(a) up, inj(b) down; between CPUs of different NIC groups of one
    node also a per-node FATPIPE link "bus" of unlimited bandwidth and zero latency.
  * latencies: intra_lat/2 on each injection link (so two CPUs of one node see intra_lat),
    (link_lat - intra_lat)/2 on each NIC link (so two CPUs on different nodes see link_lat).

In SimGrid terms: one zone, routing Dijkstra (routes computed, so the file grows as
nodes x NICs), holding one <cluster> per (node, NIC) whose private links are the injection
links, a "switch" zone with one router, and zoneRoutes group <-> switch (the NIC link) and
group <-> group of the same node (the bus).

hk's node is the platform's node, not the SimGrid host: runs set HK_NODE_SIZE to the
number of ranks per node (ranks are placed node by node, docs/simulate.md).
"""

from __future__ import annotations

import argparse
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List, Optional

from hybridkit.cliargs import MAX_CORES, MAX_NODES, MAX_RANKS, count
from hybridkit.errors import UsageError
from hybridkit.simulate.calibration import derive

_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
          "Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3, "Ti": 1024.0 ** 4}
_BW = re.compile(r"^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(|k|K|M|G|T|Ki|Mi|Gi|Ti)(Bps|bps)$")
_LAT = re.compile(r"^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|ms|us|ns)$")
_LAT_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
UNLIMITED = 100.0  # an unlimited injection link: this many times the NIC link's bandwidth


def parse_bw(text: str) -> float:
    """SimGrid bandwidth text ('1GBps', '437MBps', '100Gbps') -> bytes per second."""
    m = _BW.match(text.strip())
    if not m:
        raise UsageError(f"bandwidth '{text}': expected a number and a unit such as "
                         f"10GBps, 437MBps or 100Gbps")
    value = float(m.group(1)) * _UNITS[m.group(2)]
    return value / 8.0 if m.group(3) == "bps" else value


def parse_lat(text: str) -> float:
    """SimGrid latency text ('10us', '1.5us', '0s') -> seconds."""
    m = _LAT.match(text.strip())
    if not m:
        raise UsageError(f"latency '{text}': expected a number and a unit s, ms, us or ns")
    return float(m.group(1)) * _LAT_UNITS[m.group(2)]


def _fmt_bw(bps: float) -> str:
    return f"{bps:.9g}Bps"


def _fmt_lat(sec: float) -> str:
    return f"{sec:.9g}s"


@dataclass(frozen=True)
class Platform:
    """A cluster: `nodes` nodes of `cores` CPUs, K NICs each; see the module's docstring."""
    name: str
    nodes: int
    cores: int
    link_bw: str = "10GBps"
    link_lat: str = "2us"
    nic_per_node: int = 1
    cpu_injection: Optional[str] = None
    intra_lat: str = "0.5us"
    speed: str = "1Gf"
    source: str = ""  # where the numbers come from (a comment in the XML)

    def check(self) -> None:
        if self.nodes < 1 or self.cores < 1:
            raise UsageError("a platform needs at least 1 node of 1 core")

        if self.nodes * self.cores > MAX_RANKS:
            raise UsageError(f"a platform of {self.nodes} nodes x {self.cores} CPUs has "
                             f"{self.nodes * self.cores} CPUs (one simulated host each): at "
                             f"most {MAX_RANKS} (--nodes, --cores)")
        if self.nic_per_node < 1 or self.nic_per_node > self.cores:
            raise UsageError(f"--nic-per-node {self.nic_per_node}: between 1 and the cores "
                             f"per node ({self.cores})")
        parse_bw(self.link_bw)
        if self.cpu_injection is not None:
            parse_bw(self.cpu_injection)
        if parse_lat(self.link_lat) < parse_lat(self.intra_lat):
            raise UsageError(f"--link-lat {self.link_lat} is below the intra-node latency "
                             f"{self.intra_lat} (--intra-lat)")

    # --- the numbers of the model ---
    def injection_bps(self) -> float:
        if self.cpu_injection is None:
            return UNLIMITED * parse_bw(self.link_bw)
        return parse_bw(self.cpu_injection)

    def inj_lat(self) -> float:
        return parse_lat(self.intra_lat) / 2.0

    def nic_lat(self) -> float:
        return (parse_lat(self.link_lat) - parse_lat(self.intra_lat)) / 2.0

    def host(self, node: int, cpu: int) -> str:
        return f"{self.name}-n{node}-c{cpu}"

    def hosts(self, nodes: Optional[int] = None, per_node: Optional[int] = None,
              stride: int = 1) -> List[str]:
        """Host names node by node: the first `per_node` CPUs (stride `stride`) of the first
        `nodes` nodes; the order of the ranks in a hostfile."""
        nodes = self.nodes if nodes is None else nodes
        per_node = self.cores if per_node is None else per_node
        if nodes > self.nodes:
            raise UsageError(f"platform {self.name} has {self.nodes} nodes, not {nodes}")
        if per_node < 1 or (per_node - 1) * stride >= self.cores:
            raise UsageError(f"{per_node} ranks per node with stride {stride} do not fit in "
                             f"the {self.cores} CPUs of a node of {self.name}")
        return [self.host(n, c * stride) for n in range(nodes) for c in range(per_node)]

    def record_field(self, file: str) -> Dict:
        """The record's "platform" field (the contract of docs/simulate.md)."""
        return {"name": self.name, "file": file, "nodes": self.nodes,
                "cores_per_node": self.cores, "link_bw": self.link_bw,
                "link_lat": self.link_lat, "nic_per_node": self.nic_per_node,
                "cpu_injection": self.cpu_injection}

    # --- the XML ---
    def xml(self) -> str:
        self.check()
        k_nics = self.nic_per_node
        inj_bw, inj_lat, nic_lat = _fmt_bw(self.injection_bps()), _fmt_lat(self.inj_lat()), \
            _fmt_lat(self.nic_lat())
        out = ["<?xml version='1.0'?>",
               '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
               '<platform version="4.1">',
               f"<!-- hybridkit platform {self.name}: {self.nodes} nodes x {self.cores} CPUs, "
               f"{k_nics} NIC(s) per node of {self.link_bw}, latency {self.link_lat} between "
               f"nodes and {self.intra_lat} inside one, per-CPU injection "
               f"{self.cpu_injection or 'unlimited'}; generated by hybridkit "
               f"(python/src/hybridkit/simulate/platform.py, model in docs/simulate.md) -->"]
        if self.source:
            out.append(f"<!-- numbers: {self.source} -->")
        out.append(f'<zone id="{self.name}" routing="Dijkstra">')
        out.append('  <zone id="switch" routing="None"><router id="switch-r"/></zone>')
        for n in range(self.nodes):
            for k in range(k_nics):
                cpus = ",".join(str(c) for c in range(k, self.cores, k_nics))
                out.append(f'  <cluster id="{self.name}-n{n}-g{k}" prefix="{self.name}-n{n}-c" '
                           f'suffix="" radical="{cpus}" speed="{self.speed}" bw="{inj_bw}" '
                           f'lat="{inj_lat}" sharing_policy="SPLITDUPLEX" '
                           f'router_id="{self.name}-n{n}-g{k}-r"/>')
        for n in range(self.nodes):
            if k_nics > 1:
                out.append(f'  <link id="{self.name}-n{n}-bus" bandwidth="{_fmt_bw(1e15)}" '
                           f'latency="0s" sharing_policy="FATPIPE"/>')
            for k in range(k_nics):
                out.append(f'  <link id="{self.name}-n{n}-nic{k}" bandwidth="{self.link_bw}" '
                           f'latency="{nic_lat}" sharing_policy="SPLITDUPLEX"/>')
        for n in range(self.nodes):
            for k in range(k_nics):
                g = f"{self.name}-n{n}-g{k}"
                out.append(f'  <zoneRoute src="{g}" dst="switch" gw_src="{g}-r" gw_dst="switch-r">'
                           f'<link_ctn id="{self.name}-n{n}-nic{k}" direction="UP"/></zoneRoute>')
                for k2 in range(k + 1, k_nics):
                    g2 = f"{self.name}-n{n}-g{k2}"
                    out.append(f'  <zoneRoute src="{g}" dst="{g2}" gw_src="{g}-r" '
                               f'gw_dst="{g2}-r"><link_ctn id="{self.name}-n{n}-bus"/></zoneRoute>')
        out.append("</zone>")
        out.append("</platform>")
        return "\n".join(out) + "\n"

    def write(self, xml_path: Path, hostfile: Optional[Path] = None,
              hosts: Optional[List[str]] = None) -> None:
        xml_path.write_text(self.xml())
        if hostfile is not None:
            hostfile.write_text("\n".join(hosts if hosts is not None else self.hosts()) + "\n")


# The named platforms.  Numbers from the seeds where they give them (docs/simulate.md).
NAMED: Dict[str, Platform] = {
    # Hitachi SR8000 (HLRS) and IBM SP (Juelich): parameters derived from published hardware
    # numbers (calibration.py names each source; docs/simulate.md has the calibration
    # table), not from the seeds' figures they are used to reproduce.  Latencies inside a
    # node are published for neither: assumed.
    "sr8000": Platform(**derive("sr8000"),
                       source="SR8000-F1: 1 GB/s per direction and 19 us between nodes (vendor, "
                              "1999); one CPU 470 MB/s (b_eff, 1 process per node, seed 003 "
                              "Table 1); intra-node latency assumed (calibration.py)"),
    "ibm-sp": Platform(**derive("ibm-sp"),
                       source="IBM p690 + Federation (HPS), 4 adapters per node: 2 GB/s per "
                              "direction, 6 us (van der Steen); one task 1.8 GB/s (HPS paper, "
                              "2004); intra-node latency assumed (calibration.py)"),
    # A modern cluster: 128 nodes x 64 cores, one 200 Gb/s NIC per node (25 GB/s), a
    # non-blocking fat tree; one core injects about half the NIC's rate (illustrative).
    "fat-tree": Platform(name="fat-tree", nodes=128, cores=64, link_bw="25GBps",
                         link_lat="1.5us", nic_per_node=1, cpu_injection="12.5GBps",
                         intra_lat="0.4us",
                         source="illustrative modern cluster (200 Gb/s NIC, non-blocking fat tree)"),
}


def platform_dir() -> Path:
    """The committed XML files of the named platforms (package data)."""
    return Path(__file__).resolve().parent / "platforms"


def named(name: str) -> Platform:
    if name not in NAMED:
        raise UsageError(f"unknown platform '{name}' (known: {', '.join(sorted(NAMED))}; or "
                         f"--nodes/--cores/... for a generated one)")
    return NAMED[name]


def parse_xml_counts(text: str) -> Dict[str, int]:
    """Hosts, links (a cluster's split-duplex private links counted once per host) and
    routes of a platform XML: what a test checks against the parameters."""
    root = ET.fromstring(text.split("\n", 2)[2] if text.startswith("<?xml") else text)
    hosts = links = 0
    for cl in root.iter("cluster"):
        n = len(cl.get("radical", "").split(","))
        hosts += n
        links += n
    hosts += sum(1 for _ in root.iter("host"))
    links += sum(1 for _ in root.iter("link"))
    routes = sum(1 for _ in root.iter("zoneRoute")) + sum(1 for _ in root.iter("route"))
    return {"hosts": hosts, "links": links, "routes": routes}


def add_platform_arguments(parser: argparse.ArgumentParser) -> None:

    g = parser.add_argument_group("platform (a named one, or generated from parameters)")
    g.add_argument("--platform", metavar="NAME",
                   help=f"a named platform: {', '.join(NAMED)} (docs/simulate.md); the "
                        f"parameters below change it")
    g.add_argument("--nodes", type=count(MAX_NODES), metavar="N",
                   help=f"nodes of the platform (1 to {MAX_NODES})")
    g.add_argument("--cores", type=count(MAX_CORES), metavar="C",
                   help=f"CPUs (cores) per node (1 to {MAX_CORES})")
    g.add_argument("--link-bw", metavar="BW", help="bandwidth of a NIC link, e.g. 10GBps")
    g.add_argument("--link-lat", metavar="LAT", help="latency between CPUs of two nodes, e.g. 2us")
    g.add_argument("--nic-per-node", type=count(MAX_CORES), metavar="K",
                   help="NICs (adapters) per node (1 to the cores per node)")
    g.add_argument("--cpu-injection", metavar="BW",
                   help="what one CPU can send or receive, e.g. 5GBps; 'none': unlimited")
    g.add_argument("--intra-lat", metavar="LAT", help="latency between CPUs of one node")
    g.add_argument("--name", metavar="NAME", help="name of a generated platform")


def platform_from_args(args: argparse.Namespace) -> Platform:
    """The named platform with the given parameters changed, or one generated from them."""
    if args.platform:
        base = named(args.platform)
    else:
        if args.nodes is None or args.cores is None:
            raise UsageError("give --platform NAME or at least --nodes N --cores C")
        base = Platform(name=args.name or f"gen-{args.nodes}x{args.cores}", nodes=args.nodes,
                        cores=args.cores)
    changes = {}
    for attr in ("nodes", "cores", "link_bw", "link_lat", "nic_per_node", "intra_lat"):
        if getattr(args, attr, None) is not None:
            changes[attr] = getattr(args, attr)
    if getattr(args, "cpu_injection", None) is not None:
        changes["cpu_injection"] = None if args.cpu_injection.lower() in ("none", "unlimited") \
            else args.cpu_injection
    if args.platform and changes:
        changes["name"] = args.name or f"{base.name}-custom"
        changes["source"] = f"{base.name} with {', '.join(f'{k}={v}' for k, v in changes.items() if k not in ('name',))}"
    elif args.name:
        changes["name"] = args.name
    plat = replace(base, **changes)
    plat.check()
    return plat


def main(argv: Optional[List[str]] = None) -> int:
    """python -m hybridkit.simulate.platform [platform args] --xml FILE [--hostfile FILE]"""
    parser = argparse.ArgumentParser(prog="python -m hybridkit.simulate.platform",
                                     description="write a SimGrid platform (docs/simulate.md)")
    add_platform_arguments(parser)
    parser.add_argument("--xml", required=True, type=Path, help="platform file to write")
    parser.add_argument("--hostfile", type=Path, help="hostfile to write (all CPUs, node by node)")
    args = parser.parse_args(argv)
    plat = platform_from_args(args)
    plat.write(args.xml, args.hostfile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
