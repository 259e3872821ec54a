"""A search: retrieve the candidates, fuse their scores, rerank or put them in context, decay."""
