"""Sub-commands of the ``symgauss`` CLI, one module each (see :mod:`symgauss.cli.main`)."""
