"""Helpers for the language server tests: a JSON-RPC client and client-side positions."""
