"""Use cases. The only layer that decides: it takes the ledger lock, brings
projections up to date, checks the request against current state, appends
events and returns a result object. The CLI and MCP server only adapt."""
