"""What is built on races: the daily deal, challenges, arenas and hindsight."""
