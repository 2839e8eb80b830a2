"""Tests for brain.graph: interpolation, clamping, validation and value semantics."""

from __future__ import annotations

import copy
import math
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.graph import Graph, GraphError

# Cozmo's default decay curve.
DEFAULT = Graph([(0, 1), (10, 1), (30, 0.9), (75, 0.6), (150, 0)])


def test_interpolates_between_nodes():
    # g(25) = 1 + (0.9 - 1) * (25 - 10) / (30 - 10) = 1 - 0.075 = 0.925
    assert DEFAULT(25) == pytest.approx(0.925)
    # g(50) = 0.9 + (0.6 - 0.9) * (50 - 30) / (75 - 30) = 0.9 - 0.3 * 20/45 = 0.766666…
    assert DEFAULT(50) == pytest.approx(0.9 - 0.3 * 20 / 45)
    # g(112.5) = 0.6 + (0 - 0.6) * 37.5 / 75 = 0.3
    assert DEFAULT(112.5) == pytest.approx(0.3)


def test_exact_at_nodes():
    for x, y in DEFAULT.points:
        assert DEFAULT(x) == y


def test_clamps_at_both_ends_without_extrapolating():
    assert DEFAULT(-5) == 1.0
    assert DEFAULT(150) == 0.0
    assert DEFAULT(1e9) == 0.0
    rising = Graph([(0, 0), (10, 1)])
    assert rising(-1) == 0.0
    assert rising(20) == 1.0


def test_single_point_is_constant():
    g = Graph([(3, 0.25)])
    assert g(-100) == g(3) == g(100) == 0.25


def test_from_nodes_matches_points():
    g = Graph.from_nodes([{"x": 0, "y": 0}, {"x": 0.5, "y": 0}, {"x": 10, "y": 1}])
    assert g == Graph([(0, 0), (0.5, 0), (10, 1)])
    assert g.points == ((0.0, 0.0), (0.5, 0.0), (10.0, 1.0))
    assert g.xs == (0.0, 0.5, 10.0)
    assert g.ys == (0.0, 0.0, 1.0)
    # g(5) = (5 - 0.5) / (10 - 0.5) = 4.5 / 9.5
    assert g(5) == pytest.approx(4.5 / 9.5)


@pytest.mark.parametrize(
    ("nodes", "fragment"),
    [
        ([], "at least one node"),
        ({"x": 1}, "expected a list"),
        ([{"x": 0}], 'nodes[0]: missing "y"'),
        ([{"x": 0, "y": 1}, {"x": "a", "y": 1}], "nodes[1].x: expected a number"),
        ([{"x": 1, "y": 1}, {"x": 0, "y": 2}], "nodes[1].x: x must not decrease"),
        ([{"x": 0, "y": float("nan")}], "nodes[0].y: expected a finite number"),
        ([{"x": 0, "y": True}], "nodes[0].y: expected a number"),
        ([3], "nodes[0]: expected an object"),
    ],
)
def test_from_nodes_errors_name_the_place(nodes, fragment):
    with pytest.raises(GraphError) as info:
        Graph.from_nodes(nodes, where="mood_config.json: decayGraphs[2].nodes")
    message = str(info.value)
    assert message.startswith("mood_config.json: decayGraphs[2].nodes")
    assert fragment in message


@pytest.mark.parametrize(
    "points",
    [[], [(2, 1), (1, 2)], [(0, math.inf)], [(1, 2, 3)], ["ab"], [("0", 1)]],
)
def test_constructor_rejects_bad_points(points):
    with pytest.raises(GraphError):
        Graph(points)


def test_graph_error_is_a_value_error():
    assert issubclass(GraphError, ValueError)


def test_immutable_hashable_and_picklable():
    g = Graph([(0, 1), (1, 0)])
    with pytest.raises(AttributeError):
        g._xs = (5.0,)  # type: ignore[misc]
    assert hash(g) == hash(Graph([(0.0, 1.0), (1.0, 0.0)]))
    assert {g: 1}[Graph([(0, 1), (1, 0)])] == 1
    assert pickle.loads(pickle.dumps(g)) == g
    assert copy.deepcopy(g) == g
    assert g != Graph([(0, 1), (1, 0.5)])
    assert g != "not a graph"


def test_repr_shows_points():
    assert repr(Graph([(0, 1), (10, 0.5)])) == "Graph([(0, 1), (10, 0.5)])"


_xs = st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=12, unique=True).map(sorted)


@given(_xs, st.data())
def test_value_stays_within_node_range(xs, data):
    ys = data.draw(st.lists(st.floats(-10, 10, allow_nan=False), min_size=len(xs), max_size=len(xs)))
    g = Graph(list(zip(xs, ys, strict=True)))
    x = data.draw(st.floats(-2e3, 2e3, allow_nan=False))
    y = g(x)
    assert min(ys) - 1e-9 <= y <= max(ys) + 1e-9


def test_two_points_at_the_same_x_make_a_step() -> None:
    """Anki's graphs (e.g. an activity's start scorer) jump at a step: 0 below it, 1 from it on."""
    g = Graph([(0, 0), (0.5, 0), (0.5, 1), (1, 1)])
    assert g(0.25) == 0
    assert g(0.5) == 1
    assert g(0.75) == 1
