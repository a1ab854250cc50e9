"""Screens of minigrad-tui."""

from .diff import DiffScreen
from .error import ErrorScreen
from .help import HelpScreen
from .jump import JumpScreen
from .main import MainScreen
from .passes import PassScreen
from .quiz import QuizScreen

__all__ = ["DiffScreen", "ErrorScreen", "HelpScreen", "JumpScreen", "MainScreen", "PassScreen", "QuizScreen"]
