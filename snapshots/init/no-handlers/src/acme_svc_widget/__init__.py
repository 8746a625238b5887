"""The Acme::Svc::Widget resource type: handlers.py is yours, models.py is derived."""
