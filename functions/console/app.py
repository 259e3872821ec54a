"""Lambda entry of the web console: /console and /console/{proxy+} (the platform's tenants in a browser).

The handler comes from mnemo.entrypoints.lambda_console.
"""

from mnemo.entrypoints.lambda_console import console_entry

entry = console_entry()
handler = entry.handler
warm = entry.warm
