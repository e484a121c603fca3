"""Replays of the Schema-Guided Dialogue dataset (SGD) through live gate sessions.

- :mod:`bench.sgd.data`: reads SGD's train and dev splits (never test).
- :mod:`bench.sgd.tools`: a gated tool and a policy per transactional intent, generated from the schema.
- :mod:`bench.sgd.replay`: one gate per process, one text-mode ``AgentSession`` per dialogue.
- :mod:`bench.sgd.transactions`: ``python -m bench.sgd.transactions --split dev --sample 300``.
- :mod:`bench.sgd.confirmations`: ``python -m bench.sgd.confirmations --split dev --sample 300``.
- :mod:`bench.sgd.negative`: a value the caller never said, for ``--variant negative``.
"""
