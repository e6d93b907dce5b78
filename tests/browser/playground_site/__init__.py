"""A Django app for the browser tests: publishes the playground fixture server."""
