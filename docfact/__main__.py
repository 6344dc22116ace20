from docfact.cli import main

main()
