"""The distinguisher wing: every event family, the objectives events are chosen by, and the choice.

A *distinguisher* looks at the selection-split outputs of both sides of a pair and proposes
candidate events with their selection counts (`base.Candidates`); `selection.choose_events` picks
among them by the certified value they are projected to reach (`objectives`), and the runner
certifies the pick on fresh samples. Members, one module each: `base` (the protocol, the tail
helpers, the histogram and threshold distinguishers that need no fitting), `floats` (Mironov's
lattice events), `statistic` (a mechanism's declared likelihood ratios), `width` (outputs whose
width depends on the data) and `learned/` (statistics fitted on the selection split). `sets` holds
the default, float, learned and pilot sets. This module is the wing's only door.
"""

from dpaudit.engine.distinguishers.base import (
    BASE_DISTINGUISHERS,
    Candidates,
    Distinguisher,
    HistogramDistinguisher,
    ThresholdDistinguisher,
    tail_candidates,
    tail_counts,
    threshold_grid,
)
from dpaudit.engine.distinguishers.floats import (
    FloatDistinguisher,
    LatticeEvent,
    UlpResidueEvent,
    float_bits,
    valuations,
)
from dpaudit.engine.distinguishers.learned import (
    LogisticDistinguisher,
    ProjectionDistinguisher,
    QuadraticDistinguisher,
    QuadraticEvent,
    ResidualEvent,
    SupportDistinguisher,
    TrajectoryDistinguisher,
    TrajectoryEvent,
    default_learned_distinguishers,
)
from dpaudit.engine.distinguishers.objectives import (
    DIRECT_ASSUMPTION,
    GDP_ASSUMPTION,
    DeltaAt,
    EpsilonAt,
    GaussianMu,
    Objective,
)
from dpaudit.engine.distinguishers.selection import (
    DISTINCT_FACTOR,
    MAX_CERTIFIED,
    PLAUSIBLE_PESSIMISM,
    SCREEN_SIZE,
    SELECTION_PESSIMISM,
    Selection,
    choose_event,
    choose_events,
)
from dpaudit.engine.distinguishers.sets import (
    DEFAULT_DISTINGUISHERS,
    FLOAT_DISTINGUISHERS,
    audits_float_bits,
    default_distinguishers,
)
from dpaudit.engine.distinguishers.statistic import (
    Statistic,
    StatisticDistinguisher,
    StatisticEvent,
    statistics_of,
    with_statistics,
)
from dpaudit.engine.distinguishers.width import (
    WidthDistinguisher,
    WidthEvent,
    columns,
    for_outputs,
    width_of,
    width_text,
)
from dpaudit.engine.events import (
    EVENT_TYPES,
    Array,
    Event,
    SetEvent,
    ThresholdEvent,
    as_rows,
    event_from_spec,
    event_spec,
    row_keys,
)

__all__ = [
    "BASE_DISTINGUISHERS",
    "DEFAULT_DISTINGUISHERS",
    "DIRECT_ASSUMPTION",
    "DISTINCT_FACTOR",
    "EVENT_TYPES",
    "FLOAT_DISTINGUISHERS",
    "GDP_ASSUMPTION",
    "MAX_CERTIFIED",
    "PLAUSIBLE_PESSIMISM",
    "SCREEN_SIZE",
    "SELECTION_PESSIMISM",
    "Array",
    "Candidates",
    "DeltaAt",
    "Distinguisher",
    "EpsilonAt",
    "Event",
    "FloatDistinguisher",
    "GaussianMu",
    "HistogramDistinguisher",
    "LatticeEvent",
    "LogisticDistinguisher",
    "Objective",
    "ProjectionDistinguisher",
    "QuadraticDistinguisher",
    "QuadraticEvent",
    "ResidualEvent",
    "Selection",
    "SetEvent",
    "Statistic",
    "StatisticDistinguisher",
    "StatisticEvent",
    "SupportDistinguisher",
    "ThresholdDistinguisher",
    "ThresholdEvent",
    "TrajectoryDistinguisher",
    "TrajectoryEvent",
    "UlpResidueEvent",
    "WidthDistinguisher",
    "WidthEvent",
    "as_rows",
    "audits_float_bits",
    "choose_event",
    "choose_events",
    "columns",
    "default_distinguishers",
    "default_learned_distinguishers",
    "event_from_spec",
    "event_spec",
    "float_bits",
    "for_outputs",
    "row_keys",
    "statistics_of",
    "tail_candidates",
    "tail_counts",
    "threshold_grid",
    "valuations",
    "width_of",
    "width_text",
    "with_statistics",
]
