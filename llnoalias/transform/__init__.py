"""From analysis to edits: roots, regions, scopes, the metadata writer and the annotate pipeline."""
