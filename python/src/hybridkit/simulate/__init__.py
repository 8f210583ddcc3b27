"""Simulated runs (SimGrid SMPI): the platforms (platform, platforms/*.xml), the seeds' study
(study, studies/*.toml) and its reference values (seedvalues), and the ELF check that tells an
smpicc program from an mpicc one (elfneeded)."""
