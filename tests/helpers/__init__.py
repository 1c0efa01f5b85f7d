"""Test helpers shared by every game's tests."""
