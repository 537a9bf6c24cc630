pir.version 4
pir.graph_tags []
{
}
