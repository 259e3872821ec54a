"""An add: extract what to remember, decide against what is stored, file the new memories."""
