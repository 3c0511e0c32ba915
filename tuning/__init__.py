"""The tuning service: Optuna studies over the bot's coefficients, played by Ray workers and
stored in SQL. Built on ``ocean``; ``ocean`` never imports it. (Arrives with the tuning issue.)"""
