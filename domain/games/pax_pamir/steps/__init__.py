"""The rulebook procedures of Pax Pamir as kernel steps, one module per rules.md section."""
