"""The web console of the platform: server-rendered pages (Jinja2, plain forms, POST-redirect-GET) that a signed-in
person uses to run their organizations and projects, through the same services and roles as the platform API.

Its own web adapter beside mnemo.api: it reads the services the composition root built, takes its sign-in
(mnemo.ports.console_auth) through its constructor, and is mounted at /console by the entry point that builds the
served app. One module per section (routes and what their pages show), the frame in `app`, `visits`, `security`
and `rendering`; templates and CSS ship inside the package;
`charts` draws the Usage page's SVG charts."""
