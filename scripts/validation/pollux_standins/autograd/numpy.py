"""autograd.numpy stand-in: numpy itself (see __init__.py)."""
from numpy import *  # noqa: F401,F403
