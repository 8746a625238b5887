"""The Example::SSM::Parameter resource type: handlers.py is yours, models.py is derived."""
