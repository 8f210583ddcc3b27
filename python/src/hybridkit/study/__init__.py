"""Run sets: planning a sweep (plan), running it (sweep, execute), the run directories
(rundir), loading them back (rundata), how far they can be trusted (quality), user programs
as apps (program) and the regression check between two run sets (compare)."""
