"""The distinguisher wing: every event family, the objectives events are chosen by, and the choice.

A *distinguisher* looks at the selection-split outputs of both sides of a pair and proposes
candidate events with their selection counts (`base.Candidates`); `selection.choose_events` picks
among them by the certified value they are projected to reach (`objectives`), and the runner
certifies the pick on fresh samples. Members, one module each: `base` (the protocol, the tail
helpers, the histogram and threshold distinguishers that need no fitting), `floats` (Mironov's
lattice events), `magnitude` (tails of log |x_j| for heavy-tailed outputs), `statistic` (a
mechanism's declared likelihood ratios), `width` (outputs whose width depends on the data) and
`learned/` (statistics fitted on the selection split). Each class registers itself with
`@distinguisher` (`registry`: its capabilities and rank) and each event class with `@event_type`
(`events`); `sets` holds the base, default, float, learned and pilot sets as queries over the
registry. This module is the wing's only door.
"""

from ..events import (
    EVENT_TYPES,
    Array,
    Event,
    SetEvent,
    ThresholdEvent,
    as_rows,
    event_from_spec,
    event_spec,
    event_type,
    row_keys,
)
from .base import (
    Candidates,
    Distinguisher,
    HistogramDistinguisher,
    Screened,
    ThresholdDistinguisher,
    count_runs,
    screen_runs,
    tail_candidates,
    tail_counts,
    threshold_grid,
)
from .floats import (
    FloatDistinguisher,
    LatticeEvent,
    UlpResidueEvent,
    float_bits,
    valuations,
)
from .learned import (
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
from .magnitude import MagnitudeDistinguisher, MagnitudeEvent
from .objectives import (
    DIRECT_ASSUMPTION,
    GDP_ASSUMPTION,
    DeltaAt,
    EpsilonAt,
    GaussianMu,
    Objective,
)
from .registry import (
    CHEAP,
    DEFAULT,
    FITTED,
    FLOAT,
    Capabilities,
    capabilities_of,
    distinguisher,
    is_cheap,
    members,
    registered,
)
from .selection import (
    DISTINCT_FACTOR,
    MAX_CERTIFIED,
    PLAUSIBLE_PESSIMISM,
    SCREEN_SIZE,
    SELECTION_PESSIMISM,
    Selection,
    choose_event,
    choose_events,
)
from .sets import (
    BASE_DISTINGUISHERS,
    DEFAULT_DISTINGUISHERS,
    FLOAT_DISTINGUISHERS,
    audits_float_bits,
    base_distinguishers,
    default_distinguishers,
    float_distinguishers,
    learned_distinguishers,
    pilot_distinguishers,
)
from .statistic import (
    Statistic,
    StatisticDistinguisher,
    StatisticEvent,
    statistics_of,
    with_statistics,
)
from .width import (
    WidthDistinguisher,
    WidthEvent,
    columns,
    for_outputs,
    width_of,
    width_text,
)

__all__ = [
    "BASE_DISTINGUISHERS",
    "CHEAP",
    "DEFAULT",
    "DEFAULT_DISTINGUISHERS",
    "DIRECT_ASSUMPTION",
    "DISTINCT_FACTOR",
    "EVENT_TYPES",
    "FITTED",
    "FLOAT",
    "FLOAT_DISTINGUISHERS",
    "GDP_ASSUMPTION",
    "MAX_CERTIFIED",
    "PLAUSIBLE_PESSIMISM",
    "SCREEN_SIZE",
    "SELECTION_PESSIMISM",
    "Array",
    "Candidates",
    "Capabilities",
    "DeltaAt",
    "Distinguisher",
    "EpsilonAt",
    "Event",
    "FloatDistinguisher",
    "GaussianMu",
    "HistogramDistinguisher",
    "LatticeEvent",
    "LogisticDistinguisher",
    "MagnitudeDistinguisher",
    "MagnitudeEvent",
    "Objective",
    "ProjectionDistinguisher",
    "QuadraticDistinguisher",
    "QuadraticEvent",
    "ResidualEvent",
    "Screened",
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
    "base_distinguishers",
    "capabilities_of",
    "choose_event",
    "choose_events",
    "columns",
    "count_runs",
    "default_distinguishers",
    "default_learned_distinguishers",
    "distinguisher",
    "event_from_spec",
    "event_spec",
    "event_type",
    "float_bits",
    "float_distinguishers",
    "for_outputs",
    "is_cheap",
    "learned_distinguishers",
    "members",
    "pilot_distinguishers",
    "registered",
    "row_keys",
    "screen_runs",
    "statistics_of",
    "tail_candidates",
    "tail_counts",
    "threshold_grid",
    "valuations",
    "width_of",
    "width_text",
    "with_statistics",
]
