from .limits import LIMIT
