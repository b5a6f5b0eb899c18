"""`python -m gym`: the command line lives in gym.cli.main."""

from gym.cli.main import main

if __name__ == "__main__":
    main()
