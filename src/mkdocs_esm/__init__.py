"""The build machinery of Embedding Space Math, as one MkDocs plugin (``plugins: - esm``)."""
