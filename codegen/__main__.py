"""`python -m codegen`: the `mcp-stubgen` command, for environments without the console script."""

from codegen.cli import run

if __name__ == "__main__":
    run()
