"""Exports of verified certificates to other checkers: Coq (``coq``), with its witnesses
(``coq_witness``) and the ``coqc`` runner (``coqc``)."""
