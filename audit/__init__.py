"""The statistical engine (`dpaudit.engine`): bounds, estimators, sampling, planning, search, runner."""
