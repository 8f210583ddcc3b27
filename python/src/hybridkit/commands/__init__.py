"""One module per subcommand: HELP, DESCRIPTION, add_arguments(parser), run(namespace) -> int.

hybridkit.cli registers them in its COMMANDS table.
"""
