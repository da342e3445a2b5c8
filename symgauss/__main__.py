from symgauss.cli.main import entry_point

entry_point()
