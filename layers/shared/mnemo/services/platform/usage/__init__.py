"""A project's usage over days: what it added, searched and spent in LLM tokens each day (UTC), for its Usage page
and `GET /api/v1/orgs/organizations/{org}/projects/{project}/usage/`. `daily.py` counts each day as the project's
counters are bumped; `report.py` reads the days back into a report."""
