"""Tests of the Queenie modules (rules/queenie)."""
