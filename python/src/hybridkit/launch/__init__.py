"""Starting the C binaries: the launchers (mpirun of Open MPI or MPICH, srun, the vcluster, the
replay test launcher; launchers), CPU sets (cpuset) and the binding each rank and thread got
(binding)."""
