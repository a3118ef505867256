"""What one run found (the record behind --stats, --report, explain and remarks) and its text forms."""
