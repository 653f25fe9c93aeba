"""The local Ray cluster's ports: no node's own port inside any node's worker range, no two
worker ranges overlapping, nothing in the kernel's ephemeral range (which it hands to outgoing
connections). Checked over many draws, without starting Ray."""

from __future__ import annotations

import random

import pytest

from byo.render.executors.ray_cluster import (
    NODE_PORT_FLAGS,
    PORT_SPAN,
    WORKER_PORTS,
    _ephemeral_range,
    plan_ports,
)


@pytest.mark.parametrize("nodes", [1, 2, 3, 5])
def test_no_port_of_a_node_lies_in_any_worker_range(nodes):
    rng = random.Random(nodes)
    busy = set(rng.sample(range(*PORT_SPAN), 60))  # ports other programs hold

    def is_free(port: int) -> bool:
        return port not in busy

    low, high = _ephemeral_range()
    for _ in range(1000):
        plan = plan_ports(nodes, rng, is_free=is_free)
        assert len(plan) == nodes
        assert set(plan[0].flags) == {"--port", *NODE_PORT_FLAGS}
        assert all(set(node.flags) == set(NODE_PORT_FLAGS) for node in plan[1:])
        singles = [port for node in plan for port in node.flags.values()]
        ranges = [node.workers for node in plan]
        assert all(len(r) == WORKER_PORTS for r in ranges)
        assert len(set(singles)) == len(singles)
        assert not any(port in r for port in singles for r in ranges)
        every = singles + [port for r in ranges for port in r]
        assert len(set(every)) == len(every)  # worker ranges do not overlap each other either
        assert not busy & set(every)
        assert all(PORT_SPAN[0] <= port <= PORT_SPAN[1] and not low <= port <= high for port in every)


def test_worker_range_arguments_cover_exactly_the_range():
    (node,) = plan_ports(1, random.Random(0), is_free=lambda port: True)
    args = node.arguments()
    low = int(next(a for a in args if a.startswith("--min-worker-port=")).split("=")[1])
    high = int(next(a for a in args if a.startswith("--max-worker-port=")).split("=")[1])
    assert range(low, high + 1) == node.workers


def test_a_span_without_room_is_a_clear_error():
    with pytest.raises(RuntimeError, match="free ports in a row"):
        plan_ports(2, random.Random(0), is_free=lambda port: False)
