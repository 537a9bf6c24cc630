from .cli.opt import main

main()
