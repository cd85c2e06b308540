"""nn.functional's implementation, one file per kind of layer; sdk.nn.functional is the public face."""
