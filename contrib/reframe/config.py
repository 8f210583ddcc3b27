# contrib/reframe/config.py: a generic ReFrame system for hybridkit's checks on one machine
# (local scheduler, mpirun launcher). A centre uses its own site configuration instead and
# only the checks file (contrib/reframe/hybridkit_checks.py).
import os

site_configuration = {
    "systems": [{
        "name": "hkgeneric",
        "descr": "one machine, mpirun",
        "hostnames": [".*"],
        "modules_system": "nomod",
        "partitions": [{
            "name": "default",
            "scheduler": "local",
            "launcher": "mpirun",
            "environs": ["builtin"],
            "max_jobs": 1,
            "processor": {"num_cpus": os.cpu_count() or 1},
        }],
    }],
    "environments": [{"name": "builtin", "cc": "mpicc", "target_systems": ["hkgeneric"]}],
}
