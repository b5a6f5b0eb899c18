"""Milestone and minefield matching (upstream's MilestoneMatcher and Evaluation).

Milestones form a DAG; each is a list of snapshot constraints (a database, a similarity measure, maybe a
reference milestone whose matched snapshot it is compared against, a target table). A milestone's
similarity at a snapshot index is the geometric mean of its constraints' (guardrails, 0 or 1, multiply
in without counting). The best mapping of milestones to increasing snapshot indices (one of the DAG's
topological orders) maximises the summed similarity, found by upstream's depth-first search with its
max-heap order and pruning (ties resolve as upstream's). Milestone similarity is the mean; any minefield
matched with non-zero similarity zeroes the episode.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

from gym.episodes.toolsandbox.similarity import SNAPSHOT_MEASURES, measures_for
from gym.episodes.toolsandbox.world import EXECUTION_ENVIRONMENT, SYSTEM, USER, World


@dataclass
class Calculator:
    """One milestone's similarity at a snapshot index given the mapping so far, cached per snapshot pair."""

    world: World
    milestone: dict
    cache: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cache = [{} for _ in self.milestone["constraints"]]
        self.measures = [measures_for(c["database"], c.get("columns") or {}) for c in self.milestone["constraints"]]

    def similarity(self, index: int, mapping: dict[int, tuple[int, float]]) -> float:
        patched = {**mapping, -1: (self.world.first_user_index, 0), None: (None, 0)}
        product, counted = 1.0, 0
        for constraint, cache, measures in zip(self.milestone["constraints"], self.cache, self.measures):
            reference_index = patched[constraint["reference"]][0]
            key = (index, reference_index)
            if key not in cache:
                namespace = constraint["database"]
                similarity = dict(constraint["similarity"])
                function = SNAPSHOT_MEASURES[similarity.pop("name")]
                reference = None if reference_index is None else self.world.rows(namespace, reference_index)
                cache[key] = function(snapshot=self.world.rows(namespace, index), target=constraint["target"],
                                      measures=measures, reference=reference, namespace=namespace, **similarity)
            product *= cache[key]
            counted += int(constraint["similarity"]["name"] != "guardrail_similarity")
        return math.pow(product, 1 / counted)


class Matcher:
    def __init__(self, spec: dict):
        self.nodes = spec["nodes"]
        self.edges = [tuple(e) for e in spec["edges"]]
        self.order = spec["order"]  # the DAG's nodes as upstream builds it (networkx, from the edge list)

    def _dfs(self, mapping: dict, calculators: list[Calculator], assigned: float, remaining: set[int],
             lowest: int, highest: int) -> tuple[dict, float]:
        if not remaining:
            return mapping, assigned
        last = mapping[next(reversed(mapping))][0] if mapping else lowest
        best_mapping: dict = {}
        best_sum = -1.0
        heap: list[tuple[float, int, int]] = []
        for node in self._sources(remaining):
            for index in reversed(range(last, highest + 1)):
                heapq.heappush(heap, (-calculators[node].similarity(index, mapping), node, index))
        while heap:
            negative, node, index = heapq.heappop(heap)
            if assigned - negative + len(remaining) - 1 <= best_sum:
                continue
            candidate = dict(mapping)
            candidate[node] = (index, -negative)
            found, total = self._dfs(candidate, calculators, assigned - negative, remaining - {node}, lowest,
                                     highest)
            if total > best_sum:
                best_mapping, best_sum = found, total
        return best_mapping, best_sum

    def _sources(self, remaining: set[int]) -> list[int]:
        """Nodes of the remaining graph with no remaining predecessor, in networkx's node order."""
        order = self._node_order()
        has_parent = {b for a, b in self.edges if a in remaining and b in remaining}
        return [n for n in order if n in remaining and n not in has_parent]

    def _node_order(self) -> list[int]:
        return list(self.order)

    def match(self, world: World) -> tuple[dict[int, tuple[int, float]], float | None]:
        if not self.nodes:
            return {}, None
        calculators = [Calculator(world, m) for m in self.nodes]
        mapping, total = self._dfs({}, calculators, 0.0, set(self._node_order()), world.first_user_index,
                                   world.max_index)
        return mapping, total / len(self.nodes)


def turn_count(world: World) -> int:
    """Messages but system ones, user <-> execution environment ones and the user's few-shot examples."""
    count = 0
    for m in world.messages:
        pair = (m["sender"], m["recipient"])
        if m["sender"] == SYSTEM or pair in ((USER, EXECUTION_ENVIRONMENT), (EXECUTION_ENVIRONMENT, USER)):
            continue
        if m.get("visible_to") == [USER] or m.get("visible_to") is None:
            continue
        count += 1
    return count


def evaluate(world: World, milestones: dict, minefields: dict) -> dict:
    """Upstream's EvaluationResult: similarity = milestone similarity, 0 if any minefield matched."""
    milestone_mapping, milestone_similarity = Matcher(milestones).match(world)
    minefield_mapping, minefield_similarity = Matcher(minefields).match(world)
    milestone_similarity = 1.0 if milestone_similarity is None else milestone_similarity
    minefield_similarity = 0.0 if minefield_similarity is None else minefield_similarity
    return {"similarity": int(minefield_similarity == 0) * milestone_similarity,
            "milestone_similarity": milestone_similarity, "minefield_similarity": minefield_similarity,
            "milestone_mapping": {str(k): list(v) for k, v in sorted(milestone_mapping.items())},
            "minefield_mapping": {str(k): list(v) for k, v in minefield_mapping.items()},
            "turn_count": turn_count(world)}
