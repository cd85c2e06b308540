"""One module per published package: its pin, builds and ops."""
