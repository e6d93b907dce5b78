from django_mcp import Server
class ConformanceServer(Server):
    name = "x"
